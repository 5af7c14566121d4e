/**
 * The WebCrypto Ed25519 backend (Secure Curves in WebCrypto, WICG; Chromium, Firefox, Safari and
 * Node all ship it). In browsers and service workers it is the only native path; in Node it runs
 * on libuv's thread pool, so many verifications in flight use more than one core.
 *
 * Availability cannot be read from any property: the only test is to call it. It is probed once
 * (importing and verifying RFC 8032 §7.1 TEST 1) and the answer cached as a promise.
 *
 * Inputs handed to `subtle` are fresh copies: WebCrypto copies its arguments when called, but
 * our callers may await a key import first, and a writable alias must not change the message
 * between our checks and the native call.
 */
import { concatBytes, hexToBytes } from './bytes.ts';
import { RFC8032_TEST1 } from './ed25519-spec.ts';

const ALGORITHM = 'Ed25519';
const PKCS8_PREFIX = /* @__PURE__ */ hexToBytes('302e020100300506032b657004220420');

let probe: Promise<SubtleCrypto | null> | undefined;

/** `crypto.subtle` when it implements Ed25519 correctly, else null. Probed once; never rejects. */
export function getWebCryptoEd25519(): Promise<SubtleCrypto | null> {
  probe ??= (async () => {
    const subtle = globalThis.crypto?.subtle;
    if (!subtle) return null;
    try {
      const { publicKey, signature, message } = RFC8032_TEST1;
      const key = await subtle.importKey('raw', publicKey.slice(), ALGORITHM, false, ['verify']);
      return (await subtle.verify(ALGORITHM, key, signature.slice(), message.slice())) ? subtle : null;
    } catch {
      return null;
    }
  })();
  return probe;
}

/** Imports a 32-byte public key (already validated by the caller) for verification. */
export function webPublicKey(subtle: SubtleCrypto, publicKey: Uint8Array): Promise<CryptoKey> {
  return subtle.importKey('raw', publicKey.slice(), ALGORITHM, false, ['verify']);
}

/** Imports a 32-byte seed as a non-extractable signing key; the PKCS#8 copy is wiped after the call. */
export function webPrivateKey(subtle: SubtleCrypto, seed: Uint8Array): Promise<CryptoKey> {
  const der = concatBytes(PKCS8_PREFIX, seed) as Uint8Array<ArrayBuffer>;
  try {
    // importKey copies `der` synchronously (WebCrypto §14.3.9 step 2), so wiping after is safe.
    return subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
  } finally {
    der.fill(0);
  }
}

/** A fresh non-extractable key pair; the public key comes back raw (public keys are always exportable). */
export async function webGenerateKey(subtle: SubtleCrypto): Promise<{ privateKey: CryptoKey; publicKey: Uint8Array }> {
  const pair = await subtle.generateKey(ALGORITHM, false, ['sign', 'verify']);
  const publicKey = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
  return { privateKey: pair.privateKey, publicKey };
}

/** True when `key` is a WebCrypto Ed25519 private key allowed to sign. */
export function isEd25519SigningKey(key: unknown): key is CryptoKey {
  return (
    typeof CryptoKey !== 'undefined' &&
    key instanceof CryptoKey &&
    key.type === 'private' &&
    key.algorithm.name === ALGORITHM &&
    key.usages.includes('sign')
  );
}

export async function webSign(subtle: SubtleCrypto, message: Uint8Array, privateKey: CryptoKey): Promise<Uint8Array> {
  return new Uint8Array(await subtle.sign(ALGORITHM, privateKey, message.slice()));
}

/** `signature` and `message` must be the caller's private copies (see module note). */
export function webVerify(
  subtle: SubtleCrypto,
  signature: Uint8Array<ArrayBuffer>,
  message: Uint8Array<ArrayBuffer>,
  publicKey: CryptoKey,
): Promise<boolean> {
  return subtle.verify(ALGORITHM, publicKey, signature, message);
}
