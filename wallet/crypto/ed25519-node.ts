/**
 * The `node:crypto` (OpenSSL) Ed25519 backend: synchronous sign/verify on the calling thread.
 *
 * Reached through `process.getBuiltinModule('node:crypto')` (Node ≥ 20.16) instead of an import
 * statement, so this module stays isomorphic: a browser bundle never references `node:crypto`
 * (the type import below is erased at build time). Keys are handed to OpenSSL as DER:
 * - public:  SPKI  = 302a300506032b6570032100 ‖ A      (RFC 8410 §4, id-Ed25519 = 1.3.101.112)
 * - private: PKCS#8 = 302e020100300506032b657004220420 ‖ seed (RFC 8410 §7)
 *
 * This module does no validation of its own: the caller (ed25519.ts) has already applied the
 * strict RFC 8032 checks, so OpenSSL only ever sees canonical inputs and prime-order keys.
 */
import type * as NodeCrypto from 'node:crypto';
import { concatBytes, hexToBytes } from './bytes.ts';
import { RFC8032_TEST1 } from './ed25519-noble.ts';

export type NodeKeyObject = NodeCrypto.KeyObject;

const SPKI_PREFIX = /* @__PURE__ */ hexToBytes('302a300506032b6570032100');
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
      if (candidate.verify(null, message, importNodePublicKey(candidate, publicKey), signature)) nodeCrypto = candidate;
    }
  } catch {
    nodeCrypto = null;
  }
  return nodeCrypto;
}

function importNodePublicKey(c: typeof NodeCrypto, publicKey: Uint8Array): NodeKeyObject {
  return c.createPublicKey({ key: Buffer.from(concatBytes(SPKI_PREFIX, publicKey)), format: 'der', type: 'spki' });
}

/** A KeyObject for a 32-byte public key (already validated by the caller). */
export function nodePublicKey(c: typeof NodeCrypto, publicKey: Uint8Array): NodeKeyObject {
  return importNodePublicKey(c, publicKey);
}

/** A KeyObject for a 32-byte seed; the DER buffer holding the seed is wiped once OpenSSL has it. */
export function nodePrivateKey(c: typeof NodeCrypto, seed: Uint8Array): NodeKeyObject {
  const der = concatBytes(PKCS8_PREFIX, seed);
  try {
    return c.createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

/** The 32-byte public key of a private KeyObject (last 32 bytes of its SPKI encoding). */
export function nodeGetPublicKey(c: typeof NodeCrypto, privateKey: NodeKeyObject): Uint8Array {
  const spki = c.createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(SPKI_PREFIX.length));
}

export function nodeSign(c: typeof NodeCrypto, message: Uint8Array, privateKey: NodeKeyObject): Uint8Array {
  // A plain Uint8Array copy: callers compare with toEqual and must not hold a pooled Buffer.
  return new Uint8Array(c.sign(null, message, privateKey));
}

/**
 * Where `nodeVerify` stages its inputs: one 128-byte buffer, off V8's heap from the start.
 * node:crypto reads a typed array through its ArrayBuffer, and a small (≤ 64-byte) array
 * lives on V8's heap until asked for one: each fresh signature and message would then cost an
 * ArrayBuffer with malloc'ed storage for the garbage collector to sweep. Verification is
 * synchronous, so the buffer is never shared between calls.
 */
const STAGE = /* @__PURE__ */ new Uint8Array(128);
const STAGED_SIGNATURE = /* @__PURE__ */ STAGE.subarray(0, 64);

export function nodeVerify(c: typeof NodeCrypto, signature: Uint8Array, message: Uint8Array, publicKey: NodeKeyObject): boolean {
  if (signature.length !== 64 || message.length > 64) return c.verify(null, message, publicKey, signature);
  STAGED_SIGNATURE.set(signature);
  STAGE.set(message, 64);
  return c.verify(null, STAGE.subarray(64, 64 + message.length), publicKey, STAGED_SIGNATURE);
}
