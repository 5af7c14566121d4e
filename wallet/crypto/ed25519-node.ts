/**
 * The `node:crypto` (OpenSSL) Ed25519 backend: synchronous sign/verify on the calling thread.
 *
 * Reached through `process.getBuiltinModule('node:crypto')` (Node ≥ 20.16) instead of an import
 * statement, so this module stays isomorphic: a browser bundle never references `node:crypto`
 * (the type import below is erased at build time). Public keys reach OpenSSL as a JWK (RFC 8037
 * §2), not SPKI DER, which OpenSSL 3.0 decodes 10–20× slower; private keys as PKCS#8 DER (RFC 8410
 * §7) in a byte buffer wiped afterwards, never a JWK string. Why: docs/crypto.md §Key cache.
 *
 * This module does no validation of its own: the caller (ed25519.ts) has already applied the
 * strict RFC 8032 checks, so OpenSSL only ever sees canonical inputs and prime-order keys.
 */
import type * as NodeCrypto from 'node:crypto';
import { base64urlToBytesLenient, bytesToBase64url } from './base64url.ts';
import { concatBytes, hexToBytes } from './bytes.ts';
import { RFC8032_TEST1 } from './ed25519-spec.ts';

export type NodeKeyObject = NodeCrypto.KeyObject;

const PKCS8_PREFIX = /* @__PURE__ */ hexToBytes('302e020100300506032b657004220420');

let nodeCrypto: typeof NodeCrypto | null | undefined;

/**
 * `node:crypto` when this runtime has it and its Ed25519 passes RFC 8032 §7.1 TEST 1, else null.
 * Probed once (synchronously) and cached.
 */
export function getNodeCrypto(): typeof NodeCrypto | null {
  if (nodeCrypto !== undefined) return nodeCrypto;
  nodeCrypto = null;
  try {
    const candidate = globalThis.process?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
    if (candidate && typeof candidate.verify === 'function') {
      const { publicKey, signature, message } = RFC8032_TEST1;
      if (candidate.verify(null, message, nodePublicKey(candidate, publicKey), signature)) nodeCrypto = candidate;
    }
  } catch {
    nodeCrypto = null;
  }
  return nodeCrypto;
}

/** A KeyObject for a 32-byte public key (already validated by the caller). */
export function nodePublicKey(c: typeof NodeCrypto, publicKey: Uint8Array): NodeKeyObject {
  const x = bytesToBase64url(publicKey);
  return c.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** A KeyObject for a 32-byte seed; the DER buffer holding the seed is wiped once OpenSSL has it. */
export function nodePrivateKey(c: typeof NodeCrypto, seed: Uint8Array): NodeKeyObject {
  const der = concatBytes(PKCS8_PREFIX, seed);
  try {
    return c.createPrivateKey({
      key: Buffer.from(der.buffer, der.byteOffset, der.byteLength),
      format: 'der',
      type: 'pkcs8',
    });
  } finally {
    der.fill(0);
  }
}

/** The 32-byte public key of a private KeyObject (the `x` of its public JWK, RFC 8037 §2). */
export function nodeGetPublicKey(c: typeof NodeCrypto, privateKey: NodeKeyObject): Uint8Array {
  const { x } = c.createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  return base64urlToBytesLenient(x);
}

export function nodeSign(c: typeof NodeCrypto, message: Uint8Array, privateKey: NodeKeyObject): Uint8Array {
  // A plain Uint8Array copy: callers compare with toEqual and must not hold a pooled Buffer.
  return new Uint8Array(c.sign(null, message, privateKey));
}

/**
 * Where `nodeVerify` stages its inputs: one 128-byte buffer, off V8's heap from the start, never
 * shared (verification is synchronous). Why: docs/crypto.md §Hot-path details.
 */
const STAGE = /* @__PURE__ */ new Uint8Array(128);
const STAGED_SIGNATURE = /* @__PURE__ */ STAGE.subarray(0, 64);

export function nodeVerify(
  c: typeof NodeCrypto,
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: NodeKeyObject,
): boolean {
  if (signature.length !== 64 || message.length > 64) return c.verify(null, message, publicKey, signature);
  STAGED_SIGNATURE.set(signature);
  STAGE.set(message, 64);
  return c.verify(null, STAGE.subarray(64, 64 + message.length), publicKey, STAGED_SIGNATURE);
}
