/**
 * Authenticated encryption for Mandate: AES-256-GCM (NIST SP 800-38D) through WebCrypto,
 * which Node 20 and every browser Mandate targets expose as `globalThis.crypto.subtle`.
 *
 * Output is one self-describing, JSON-safe envelope whose format is stable (key stores and the
 * issuer's server-custody keys persist it):
 *
 *     { "v": 1, "alg": "A256GCM", "iv": "<base64url 12 bytes>", "ct": "<base64url ciphertext ‖ tag>" }
 *
 * A fresh random 96-bit IV per message (SP 800-38D §8.2.2); `aad` is authenticated, not stored.
 * Why, and the nonce bound (§8.3): docs/keystores.md §Encryption envelope.
 */
import { base64urlToBytes, bytesToBase64url } from './base64url.ts';
import { assertBytes } from './bytes.ts';
import { MandateError } from './errors.ts';

export type AeadErrorCode = 'DECRYPTION_FAILED' | 'ENVELOPE_INVALID';

export class AeadError extends MandateError<AeadErrorCode> {
  override name = 'AeadError';
}

/** Version 1 of the envelope; any other `v` or `alg` is refused, never guessed. */
export interface AeadEnvelope {
  readonly v: 1;
  readonly alg: 'A256GCM';
  /** base64url (no padding) of the 12-byte nonce. */
  readonly iv: string;
  /** base64url (no padding) of ciphertext ‖ 16-byte tag. */
  readonly ct: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ENVELOPE_MEMBERS = ['alg', 'ct', 'iv', 'v'];
const EMPTY = new Uint8Array(0);

function envelopeInvalid(what: string): AeadError {
  return new AeadError('ENVELOPE_INVALID', `AEAD envelope ${what}`);
}

/**
 * Validates an envelope read from storage (exactly the members v, alg, iv, ct; v 1; alg
 * A256GCM; a 12-byte iv; a ct at least one tag long). Throws ENVELOPE_INVALID otherwise.
 */
export function parseAeadEnvelope(value: unknown): AeadEnvelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw envelopeInvalid('must be an object');
  const members = Object.keys(value).sort();
  if (members.length !== ENVELOPE_MEMBERS.length || members.some((m, i) => m !== ENVELOPE_MEMBERS[i])) {
    throw envelopeInvalid('must have exactly the members v, alg, iv, ct');
  }
  const { v, alg, iv, ct } = value as Record<string, unknown>;
  if (v !== 1) throw envelopeInvalid('version is not supported (expected v: 1)');
  if (alg !== 'A256GCM') throw envelopeInvalid('algorithm is not supported (expected "A256GCM")');
  if (base64urlToBytes(iv)?.length !== IV_BYTES) throw envelopeInvalid(`iv must be ${IV_BYTES} bytes of base64url`);
  const ctBytes = base64urlToBytes(ct);
  if (ctBytes === undefined || ctBytes.length < TAG_BYTES)
    throw envelopeInvalid(`ct must be base64url of at least ${TAG_BYTES} bytes`);
  return { v, alg, iv: iv as string, ct: ct as string };
}

function importAesKey(key: Uint8Array<ArrayBuffer>, usage: KeyUsage): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('raw', key, { name: 'AES-GCM' }, false, [usage]);
}

/** Encrypts `plaintext` under a 32-byte key with a fresh random nonce. */
export async function encrypt(key: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): Promise<AeadEnvelope> {
  // Copied before the first await so a caller's later writes cannot change what is encrypted.
  const keyCopy = Uint8Array.from(assertBytes(key, 32, 'key'));
  const data = Uint8Array.from(assertBytes(plaintext, undefined, 'plaintext'));
  const additionalData = aad === undefined ? EMPTY : Uint8Array.from(assertBytes(aad, undefined, 'aad'));
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
  try {
    const aesKey = await importAesKey(keyCopy, 'encrypt');
    const sealed = await globalThis.crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData, tagLength: 128 },
      aesKey,
      data,
    );
    return { v: 1, alg: 'A256GCM', iv: bytesToBase64url(iv), ct: bytesToBase64url(new Uint8Array(sealed)) };
  } finally {
    keyCopy.fill(0);
    data.fill(0);
  }
}

/**
 * Decrypts an envelope (validated first: ENVELOPE_INVALID). A wrong key, a wrong `aad` or any
 * altered byte all give the same DECRYPTION_FAILED: GCM cannot tell them apart, and a message
 * that did would help an attacker.
 */
export async function decrypt(key: Uint8Array, envelope: unknown, aad?: Uint8Array): Promise<Uint8Array> {
  const keyCopy = Uint8Array.from(assertBytes(key, 32, 'key'));
  const additionalData = aad === undefined ? EMPTY : Uint8Array.from(assertBytes(aad, undefined, 'aad'));
  const parsed = parseAeadEnvelope(envelope);
  // Fresh ArrayBuffer-backed copies: parseAeadEnvelope has already proven both decode.
  const iv = Uint8Array.from(base64urlToBytes(parsed.iv) ?? EMPTY);
  const ct = Uint8Array.from(base64urlToBytes(parsed.ct) ?? EMPTY);
  try {
    const aesKey = await importAesKey(keyCopy, 'decrypt');
    const plain = await globalThis.crypto.subtle.decrypt(
      { name: 'AES-GCM', iv, additionalData, tagLength: 128 },
      aesKey,
      ct,
    );
    return new Uint8Array(plain);
  } catch {
    throw new AeadError('DECRYPTION_FAILED', 'decryption failed');
  } finally {
    keyCopy.fill(0);
  }
}
