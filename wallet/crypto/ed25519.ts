/**
 * Ed25519 (RFC 8032) for Mandate: key generation, signing and strict verification, run by the
 * fastest implementation the runtime has (`node`, `webcrypto` or `noble`; `setEd25519Backend`
 * sets the process-wide default, `{ backend }` overrides one call).
 *
 * Verdicts are identical on every backend because the strict rules are applied here, before any
 * backend runs, and noble's equation is made cofactorless like OpenSSL's and BoringSSL's:
 * 1. S < L and R a canonical point encoding (RFC 8032 §5.1.7 step 1, §5.1.3);
 * 2. A canonical, not small-order, torsion-free (checked once per key, then cached);
 * 3. [S]B − [k]A encodes to exactly the R bytes (cofactorless §5.1.7 step 3; see ed25519-noble.ts).
 * docs/crypto.md §Backends and §Acceptance rules say how each is chosen and each case rejected.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { assertBytes, hexToBytes, randomBytes } from './bytes.ts';
import { MandateError } from './errors.ts';
import { LruCache } from './lru.ts';
import { decodeCheckedPublicKey, nobleVerify, publicKeyProblem, type EdwardsPoint } from './ed25519-noble.ts';
import {
  getNodeCrypto,
  nodeGetPublicKey,
  nodePrivateKey,
  nodePublicKey,
  nodeSign,
  nodeVerify,
  type NodeKeyObject,
} from './ed25519-node.ts';
import {
  getWebCryptoEd25519,
  isEd25519SigningKey,
  webGenerateKey,
  webPrivateKey,
  webPublicKey,
  webSign,
  webVerify,
} from './ed25519-webcrypto.ts';

export type Ed25519ErrorCode = 'INVALID_PUBLIC_KEY' | 'INVALID_PRIVATE_KEY' | 'NATIVE_UNAVAILABLE';

export class Ed25519Error extends MandateError<Ed25519ErrorCode> {
  override name = 'Ed25519Error';
}

/** Something that can sign for one Ed25519 public key without handing out its private key. */
export interface Signer {
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** 64-byte Ed25519 signature of `message`. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** Which implementation computes: OpenSSL via node:crypto, WebCrypto, or pure-JS noble. */
export type Ed25519Backend = 'node' | 'webcrypto' | 'noble';

export interface Ed25519Options {
  /** Overrides the process-wide backend for this call (NATIVE_UNAVAILABLE when absent here). */
  readonly backend?: Ed25519Backend;
}

// ---------------------------------------------------------------------------------------------
// Backend choice

const BACKENDS: readonly Ed25519Backend[] = /* @__PURE__ */ Object.freeze(['node', 'webcrypto', 'noble']);

let chosenBackend: Ed25519Backend | undefined;
let detectedBackend: Ed25519Backend | undefined;

type Runner =
  | { readonly kind: 'node'; readonly c: NonNullable<ReturnType<typeof getNodeCrypto>> }
  | { readonly kind: 'webcrypto'; readonly subtle: SubtleCrypto }
  | { readonly kind: 'noble' };

const NOBLE: Runner = /* @__PURE__ */ Object.freeze({ kind: 'noble' });

function unavailable(backend: string): Ed25519Error {
  return new Ed25519Error(
    'NATIVE_UNAVAILABLE',
    `Ed25519 backend "${String(backend)}" is not available in this runtime`,
  );
}

/**
 * Sets the process-wide backend; 'auto' restores the default (fastest single-stream native path:
 * `node` in Node, else `webcrypto` when it works, else `noble`). Throws NATIVE_UNAVAILABLE for an
 * unknown name or for `node` outside Node; `webcrypto` is probed asynchronously, so its absence
 * surfaces on the first sign/verify.
 */
export function setEd25519Backend(backend: Ed25519Backend | 'auto'): void {
  if (backend === 'auto') {
    chosenBackend = undefined;
    return;
  }
  if (!BACKENDS.includes(backend) || (backend === 'node' && !getNodeCrypto())) throw unavailable(backend);
  chosenBackend = backend;
}

/** The backend sign/verify use when no `{ backend }` is passed. */
export async function getEd25519Backend(): Promise<Ed25519Backend> {
  if (chosenBackend) return chosenBackend;
  detectedBackend ??= getNodeCrypto() ? 'node' : (await getWebCryptoEd25519()) ? 'webcrypto' : 'noble';
  return detectedBackend;
}

/** Every backend that works in this runtime, fastest single-stream first; always ends with 'noble'. */
export async function availableEd25519Backends(): Promise<Ed25519Backend[]> {
  const available: Ed25519Backend[] = [];
  if (getNodeCrypto()) available.push('node');
  if (await getWebCryptoEd25519()) available.push('webcrypto');
  available.push('noble');
  return available;
}

async function runnerFor(options: Ed25519Options | undefined): Promise<Runner> {
  const backend = options?.backend ?? chosenBackend ?? detectedBackend ?? (await getEd25519Backend());
  if (backend === 'noble') return NOBLE;
  if (backend === 'node') {
    const c = getNodeCrypto();
    if (c) return { kind: 'node', c };
  } else if (backend === 'webcrypto') {
    const subtle = await getWebCryptoEd25519();
    if (subtle) return { kind: 'webcrypto', subtle };
  }
  throw unavailable(backend);
}

// ---------------------------------------------------------------------------------------------
// Encodings (RFC 8032 §5.1.2–5.1.3, little-endian)

/** L = 2^252 + 27742317777372353535851937790883648493, the prime order of B. */
const L_LE = /* @__PURE__ */ hexToBytes('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010');
/** p = 2^255 − 19. */
const P_LE = /* @__PURE__ */ hexToBytes('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f');
const ONE_LE = /* @__PURE__ */ hexToBytes('0100000000000000000000000000000000000000000000000000000000000000');
const P_MINUS_ONE_LE = /* @__PURE__ */ hexToBytes('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f');

function isBytes(value: unknown, length?: number): value is Uint8Array {
  return value instanceof Uint8Array && (length === undefined || value.length === length);
}

/**
 * The 32-byte little-endian integer at `a[offset…offset+32)` is below `b` (public data: no
 * constant time needed). With the top bit of the last byte optionally masked off. Offsets
 * instead of subarrays: this runs for every signature verified.
 */
function lessThanLE(a: Uint8Array, offset: number, b: Uint8Array, topMask = 0xff): boolean {
  for (let i = 31; i >= 0; i--) {
    const x = (a[offset + i] as number) & (i === 31 ? topMask : 0xff);
    const y = b[i] as number;
    if (x !== y) return x < y;
  }
  return false;
}

/** RFC 8032 §5.1.7 step 1: "in the range 0 <= s < L" — rejects the malleable S + L. */
function isCanonicalScalar(bytes: Uint8Array, offset: number): boolean {
  return lessThanLE(bytes, offset, L_LE);
}

/**
 * RFC 8032 §5.1.3 decoding rules that can be read off the bytes: y < p (step 1), no sign bit on
 * x = 0 (step 4); on-curve is left to the comparison (docs/crypto.md §Acceptance rules). Reads `offset…offset+32`.
 */
function isCanonicalPointEncoding(encoded: Uint8Array, offset: number): boolean {
  if (!lessThanLE(encoded, offset, P_LE, 0x7f)) return false;
  if (((encoded[offset + 31] as number) & 0x80) === 0) return true;
  // The sign bit is set: y must not be 1 or p - 1 (then x = 0, which has no negative).
  return !sameMasked(encoded, offset, ONE_LE) && !sameMasked(encoded, offset, P_MINUS_ONE_LE);
}

/** The 32 bytes at `offset`, sign bit masked off, equal `b`. */
function sameMasked(a: Uint8Array, offset: number, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) {
    if (((a[offset + i] as number) & (i === 31 ? 0x7f : 0xff)) !== b[i]) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Public keys: validated once, cached with their imported native key objects

interface CachedPublicKey {
  readonly bytes: Uint8Array;
  /** For the noble backend: decoded when it first needs it (validation keeps no point). */
  point: EdwardsPoint | undefined;
  node?: NodeKeyObject;
  web?: Promise<CryptoKey>;
}

/**
 * Validated keys with their native imports, paid once per key; only VALID keys, so bad keys cannot
 * evict good ones (why: docs/crypto.md §Key cache).
 */
const publicKeys = new LruCache<string, CachedPublicKey>({ max: 1024 });

/**
 * Ids of keys that passed validation, kept 16× longer than `publicKeys`: re-importing an evicted
 * key beats validating it again (why: docs/crypto.md §Key cache).
 */
const validatedKeys = new LruCache<string, true>({ max: 16 * 1024 });

/**
 * The cache key for 32 key bytes: one character per byte (a short one-byte string, built without
 * the intermediate strings hex encoding makes — this runs for every signature verified).
 */
function keyId(publicKey: Uint8Array): string {
  // Reflect.apply takes any array-like, so the bytes go in as they are (no copy to number[]).
  return Reflect.apply(String.fromCharCode, null, publicKey) as string;
}

/** The cache entry for a 32-byte key, or the reason it is rejected. */
function lookupPublicKey(publicKey: Uint8Array): CachedPublicKey | string {
  const id = keyId(publicKey);
  const hit = publicKeys.get(id);
  if (hit) return hit;
  const bytes = publicKey.slice();
  if (!validatedKeys.has(id)) {
    const problem = publicKeyProblem(bytes);
    if (problem !== undefined) return problem;
    validatedKeys.set(id, true);
  }
  const entry: CachedPublicKey = { bytes, point: undefined };
  publicKeys.set(id, entry);
  return entry;
}

/**
 * Throws INVALID_PUBLIC_KEY unless `publicKey` is 32 bytes encoding a point Mandate verifies
 * against: canonical (RFC 8032 §5.1.3), not of small order, without a torsion component. For
 * layers that accept keys from outside (did:key, DID documents) and must reject them early.
 */
export function assertValidPublicKey(publicKey: unknown): asserts publicKey is Uint8Array {
  if (!isBytes(publicKey, 32))
    throw new Ed25519Error('INVALID_PUBLIC_KEY', 'Ed25519 public key must be a 32-byte Uint8Array');
  const entry = lookupPublicKey(publicKey);
  if (typeof entry === 'string') throw new Ed25519Error('INVALID_PUBLIC_KEY', `Ed25519 ${entry}`);
}

function webKeyOf(subtle: SubtleCrypto, entry: CachedPublicKey): Promise<CryptoKey> {
  entry.web ??= webPublicKey(subtle, entry.bytes).catch((error: unknown) => {
    entry.web = undefined; // a failed import is retried, not remembered
    throw error;
  });
  return entry.web;
}

// ---------------------------------------------------------------------------------------------
// Keys, signing, verification

/** A fresh 32-byte private key (RFC 8032 §5.1.5 "seed"). */
export function generateSeed(): Uint8Array {
  return randomBytes(32);
}

/** The 32-byte public key for a 32-byte seed (node:crypto when present, else noble). */
export function getPublicKey(seed: Uint8Array): Uint8Array {
  assertBytes(seed, 32, 'seed');
  const c = getNodeCrypto();
  return c ? nodeGetPublicKey(c, nodePrivateKey(c, seed)) : ed25519.getPublicKey(seed);
}

/**
 * Signs `message` with a 32-byte seed (RFC 8032 §5.1.6; deterministic, so every backend returns
 * the same bytes). Imports the seed for this one call; use `seedSigner` to sign repeatedly.
 */
export async function sign(message: Uint8Array, seed: Uint8Array, options?: Ed25519Options): Promise<Uint8Array> {
  assertBytes(message, undefined, 'message');
  assertBytes(seed, 32, 'seed');
  // Copies before the first await, so a writable alias cannot swap the message or the key.
  const msg = message.slice();
  const secret = seed.slice();
  try {
    const runner = await runnerFor(options);
    if (runner.kind === 'node') return nodeSign(runner.c, msg, nodePrivateKey(runner.c, secret));
    if (runner.kind === 'webcrypto')
      return await webSign(runner.subtle, msg, await webPrivateKey(runner.subtle, secret));
    return ed25519.sign(msg, secret);
  } finally {
    secret.fill(0);
  }
}

/**
 * Verifies an Ed25519 signature under the strict rules in the module note. Resolves false (never
 * rejects) for anything that does not verify, including wrong types and lengths: signature,
 * message and key are attacker-controlled. It rejects only with NATIVE_UNAVAILABLE, a caller
 * error: the requested backend does not exist in this runtime.
 */
export function verify(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
  options?: Ed25519Options,
): Promise<boolean> {
  if (!isBytes(signature, 64) || !isBytes(message) || !isBytes(publicKey, 32)) return RESOLVED_FALSE;
  // node:crypto verifies synchronously: when it is the backend, everything happens before this
  // function returns, so nothing can rewrite the inputs in between and no copies are needed. A
  // verifier checks several signatures per presentation; skipping the awaits and copies pays.
  const backend = options?.backend ?? chosenBackend ?? detectedBackend;
  if (backend === 'node') {
    const c = getNodeCrypto();
    if (c) return verifyNow({ kind: 'node', c }, signature, message, publicKey) ? RESOLVED_TRUE : RESOLVED_FALSE;
  }
  return verifyLater(signature, message, publicKey, options);
}

const RESOLVED_TRUE = /* @__PURE__ */ Promise.resolve(true);
const RESOLVED_FALSE = /* @__PURE__ */ Promise.resolve(false);

async function verifyLater(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
  options?: Ed25519Options,
): Promise<boolean> {
  // Copies before the first await, so a writable alias cannot swap what is verified.
  const sig = signature.slice();
  const msg = message.slice();
  const key = publicKey.slice();
  const runner = await runnerFor(options);
  if (runner.kind === 'webcrypto') {
    try {
      const entry = lookupPublicKey(key);
      if (typeof entry === 'string' || !isCanonicalSignature(sig)) return false;
      return await webVerify(runner.subtle, sig, msg, await webKeyOf(runner.subtle, entry));
    } catch {
      return false;
    }
  }
  return verifyNow(runner, sig, msg, key);
}

/** RFC 8032 §5.1.7 step 1 read off the bytes: S < L and R a canonical point encoding. */
function isCanonicalSignature(sig: Uint8Array): boolean {
  return isCanonicalScalar(sig, 32) && isCanonicalPointEncoding(sig, 0);
}

/** The synchronous backends (node, noble); never throws. */
function verifyNow(
  runner: Exclude<Runner, { kind: 'webcrypto' }>,
  sig: Uint8Array,
  msg: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  try {
    const key = lookupPublicKey(publicKey);
    if (typeof key === 'string' || !isCanonicalSignature(sig)) return false;
    if (runner.kind === 'node')
      return nodeVerify(runner.c, sig, msg, (key.node ??= nodePublicKey(runner.c, key.bytes)));
    return nobleVerify(sig, msg, key.bytes, (key.point ??= decodeCheckedPublicKey(key.bytes)));
  } catch {
    return false;
  }
}

/**
 * A Signer over an in-memory seed. The seed is copied (later writes to it change nothing) and
 * imported into a native backend at most once per signer.
 */
export function seedSigner(seed: Uint8Array, options?: Ed25519Options): Signer {
  const secret = Uint8Array.from(assertBytes(seed, 32, 'seed'));
  // With node:crypto the public key is read off the imported private key, which signing then
  // reuses: importing a seed is the costly part (~0.7 ms, OpenSSL's PKCS#8 decoder).
  const c = getNodeCrypto();
  let nodeKey: NodeKeyObject | undefined;
  let publicKey: Uint8Array;
  if (c) publicKey = nodeGetPublicKey(c, (nodeKey = nodePrivateKey(c, secret)));
  else publicKey = ed25519.getPublicKey(secret);
  let webKey: Promise<CryptoKey> | undefined;
  return Object.freeze({
    publicKey,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      assertBytes(message, undefined, 'message');
      const msg = message.slice();
      const runner = await runnerFor(options);
      if (runner.kind === 'node') return nodeSign(runner.c, msg, (nodeKey ??= nodePrivateKey(runner.c, secret)));
      if (runner.kind === 'webcrypto')
        return webSign(runner.subtle, msg, await (webKey ??= webPrivateKey(runner.subtle, secret)));
      return ed25519.sign(msg, secret);
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Non-extractable WebCrypto keys (the browser key store keeps these in IndexedDB)

async function requireWebCrypto(): Promise<SubtleCrypto> {
  const subtle = await getWebCryptoEd25519();
  if (!subtle) throw unavailable('webcrypto');
  return subtle;
}

/** A fresh key pair whose private half can sign but never be exported (WebCrypto only). */
export async function generateNonExtractableKey(): Promise<{ privateKey: CryptoKey; publicKey: Uint8Array }> {
  return webGenerateKey(await requireWebCrypto());
}

/** Imports a 32-byte seed as a non-extractable WebCrypto signing key, with its public key. */
export async function importNonExtractableSeed(
  seed: Uint8Array,
): Promise<{ privateKey: CryptoKey; publicKey: Uint8Array }> {
  assertBytes(seed, 32, 'seed');
  const secret = seed.slice();
  try {
    const publicKey = getPublicKey(secret);
    const privateKey = await webPrivateKey(await requireWebCrypto(), secret);
    return { privateKey, publicKey };
  } finally {
    secret.fill(0);
  }
}

/**
 * A Signer over a WebCrypto Ed25519 private key. INVALID_PRIVATE_KEY when `privateKey` is not an
 * Ed25519 signing key, or (checked on the first signature, which is verified) when it does not
 * belong to `publicKey` — a mismatched pair would otherwise produce signatures nobody accepts.
 */
export function cryptoKeySigner(privateKey: CryptoKey, publicKey: Uint8Array): Signer {
  if (!isEd25519SigningKey(privateKey)) {
    throw new Ed25519Error(
      'INVALID_PRIVATE_KEY',
      'privateKey must be a WebCrypto Ed25519 private key with the "sign" usage',
    );
  }
  assertValidPublicKey(publicKey);
  const ownPublicKey = publicKey.slice();
  let pairChecked = false;
  return Object.freeze({
    publicKey: ownPublicKey,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      assertBytes(message, undefined, 'message');
      const msg = message.slice();
      const signature = await webSign(await requireWebCrypto(), msg, privateKey);
      if (!pairChecked) {
        if (!(await verify(signature, msg, ownPublicKey))) {
          throw new Ed25519Error('INVALID_PRIVATE_KEY', 'privateKey does not belong to the given publicKey');
        }
        pairChecked = true;
      }
      return signature;
    },
  });
}
