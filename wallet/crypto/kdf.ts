/**
 * Passphrase → 32-byte key with scrypt (RFC 7914), for encrypting key material at rest.
 *
 * - `scryptAsync` from @noble/hashes yields to the event loop every few milliseconds, so a
 *   browser tab stays responsive during the ~1 s derivation.
 * - The parameters travel with the ciphertext as a JSON-safe record
 *   `{ "alg": "scrypt", "N", "r", "p", "salt": "<base64url>" }` (docs/keystores.md "KDF"), so
 *   the cost can be raised later without breaking old files.
 * - Parameters read back from storage are untrusted: memory (128·N·r bytes, RFC 7914 §5) and
 *   work (128·N·r·p) are bounded before anything is allocated, so a crafted file cannot make
 *   the process allocate gigabytes or spin for minutes.
 * - Passphrases are normalized to Unicode NFC (RFC 8265 §4.2 OpaqueString) so the same
 *   passphrase typed on two systems derives the same key.
 */
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { base64urlToBytes, bytesToBase64url } from './base64url.ts';
import { randomBytes, utf8ToBytes } from './bytes.ts';
import { MandateError } from './errors.ts';

export type KdfErrorCode = 'KDF_PARAMS_INVALID' | 'PASSPHRASE_INVALID';

export class KdfError extends MandateError<KdfErrorCode> {
  override name = 'KdfError';
}

/** scrypt cost: N (CPU/memory, a power of two), r (block size), p (parallelization). */
export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** What is stored next to the ciphertext to derive the same key again. */
export interface ScryptParams extends ScryptCost {
  readonly alg: 'scrypt';
  /** base64url (no padding) of a random 16-byte salt. */
  readonly salt: string;
}

/**
 * N = 2^17, r = 8, p = 1: 128 MiB and about 1.6 s with the pure-JS scrypt in Node 20 on a
 * shared 2-core machine (bench figures in docs/keystores.md). That is the cost an attacker pays
 * per guess; a store unlocks once per process, so users pay it once.
 */
export const SCRYPT_DEFAULT_COST: ScryptCost = /* @__PURE__ */ Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

/**
 * Bounds applied to every cost, chosen or read from storage. The floor keeps a typo from
 * producing a trivially guessable file; the ceilings (256 MiB of memory, 4× the default work)
 * keep a crafted file from exhausting the process.
 */
export const SCRYPT_LIMITS = /* @__PURE__ */ Object.freeze({
  minN: 2 ** 10,
  /** 128·N·r: below 1 MiB a guess costs well under a millisecond (N = 2^10, r = 1 is 128 KiB). */
  minMemoryBytes: 2 ** 20,
  maxMemoryBytes: 2 ** 28,
  maxWorkBytes: 2 ** 29,
  saltBytes: 16,
  maxPassphraseBytes: 1024,
});

const KEY_BYTES = 32;
const PARAM_MEMBERS = ['N', 'alg', 'p', 'r', 'salt'];

function paramsInvalid(what: string): KdfError {
  return new KdfError('KDF_PARAMS_INVALID', `scrypt parameters ${what}`);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** Checks N, r, p against RFC 7914 §2 and SCRYPT_LIMITS. */
export function assertScryptCost(cost: unknown): ScryptCost {
  if (typeof cost !== 'object' || cost === null) throw paramsInvalid('must be an object');
  const { N, r, p } = cost as Record<string, unknown>;
  if (!isPositiveInteger(N) || !isPositiveInteger(r) || !isPositiveInteger(p))
    throw paramsInvalid('N, r and p must be positive integers');
  // RFC 7914 §2: N is a power of two greater than 1.
  if ((N & (N - 1)) !== 0 || N < SCRYPT_LIMITS.minN)
    throw paramsInvalid(`N must be a power of two of at least ${SCRYPT_LIMITS.minN}`);
  const memory = 128 * N * r;
  if (memory < SCRYPT_LIMITS.minMemoryBytes)
    throw paramsInvalid(`need only ${memory} bytes of memory, below the floor of ${SCRYPT_LIMITS.minMemoryBytes}`);
  if (memory > SCRYPT_LIMITS.maxMemoryBytes)
    throw paramsInvalid(`need ${memory} bytes of memory, above the limit of ${SCRYPT_LIMITS.maxMemoryBytes}`);
  if (memory * p > SCRYPT_LIMITS.maxWorkBytes)
    throw paramsInvalid(`cost 128·N·r·p = ${memory * p} is above the limit of ${SCRYPT_LIMITS.maxWorkBytes}`);
  return { N, r, p };
}

/** Validates a stored parameter record (exact members, bounded cost, 16-byte salt). */
export function parseScryptParams(value: unknown): ScryptParams {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw paramsInvalid('must be an object');
  const members = Object.keys(value).sort();
  if (members.length !== PARAM_MEMBERS.length || members.some((m, i) => m !== PARAM_MEMBERS[i])) {
    throw paramsInvalid('must have exactly the members alg, N, r, p, salt');
  }
  const record = value as Record<string, unknown>;
  if (record.alg !== 'scrypt') throw paramsInvalid('alg must be "scrypt"');
  const { N, r, p } = assertScryptCost(record);
  if (base64urlToBytes(record.salt)?.length !== SCRYPT_LIMITS.saltBytes)
    throw paramsInvalid(`salt must be ${SCRYPT_LIMITS.saltBytes} bytes of base64url`);
  return { alg: 'scrypt', N, r, p, salt: record.salt as string };
}

function passphraseBytes(passphrase: unknown): Uint8Array {
  if (typeof passphrase !== 'string' || passphrase.length === 0) {
    throw new KdfError('PASSPHRASE_INVALID', 'passphrase must be a non-empty string');
  }
  const bytes = utf8ToBytes(passphrase.normalize('NFC'));
  if (bytes.length > SCRYPT_LIMITS.maxPassphraseBytes) {
    throw new KdfError(
      'PASSPHRASE_INVALID',
      `passphrase must be at most ${SCRYPT_LIMITS.maxPassphraseBytes} bytes of UTF-8`,
    );
  }
  return bytes;
}

async function scrypt32(password: Uint8Array, salt: Uint8Array, { N, r, p }: ScryptCost): Promise<Uint8Array> {
  try {
    // noble counts 128·r·(N + p + 1) bytes; within our bounds the p + 1 blocks add < 1 MiB.
    return await scryptAsync(password, salt, {
      N,
      r,
      p,
      dkLen: KEY_BYTES,
      maxmem: SCRYPT_LIMITS.maxMemoryBytes + 2 ** 20,
    });
  } finally {
    password.fill(0);
  }
}

/** Derives a key under a fresh random salt; store the returned params with the ciphertext. */
export async function createPassphraseKey(
  passphrase: string,
  cost: ScryptCost = SCRYPT_DEFAULT_COST,
): Promise<{ key: Uint8Array; params: ScryptParams }> {
  const checked = assertScryptCost(cost);
  const password = passphraseBytes(passphrase);
  const salt = randomBytes(SCRYPT_LIMITS.saltBytes);
  const key = await scrypt32(password, salt, checked);
  return { key, params: { alg: 'scrypt', ...checked, salt: bytesToBase64url(salt) } };
}

/** Derives the key again from stored params (validated and bounded first: KDF_PARAMS_INVALID). */
export async function derivePassphraseKey(passphrase: string, params: unknown): Promise<Uint8Array> {
  const checked = parseScryptParams(params);
  const password = passphraseBytes(passphrase);
  return scrypt32(password, base64urlToBytes(checked.salt) as Uint8Array, checked);
}
