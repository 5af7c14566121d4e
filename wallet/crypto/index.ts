/**
 * The crypto core: the only code in Mandate that touches cryptography. See docs/crypto.md.
 */
export { MandateError, isMandateError } from './errors.ts';
export {
  BytesError,
  bytesToHex,
  hexToBytes,
  utf8ToBytes,
  bytesToUtf8,
  randomBytes,
  equalBytes,
  concatBytes,
} from './bytes.ts';
export { LruCache, type LruOptions } from './lru.ts';
export {
  Ed25519Error,
  type Ed25519Backend,
  type Signer,
  generateSeed,
  getPublicKey,
  sign,
  verify,
  seedSigner,
  assertValidPublicKey,
  setEd25519Backend,
  getEd25519Backend,
  availableEd25519Backends,
  generateNonExtractableKey,
  importNonExtractableSeed,
  cryptoKeySigner,
} from './ed25519.ts';
export {
  MultibaseError,
  encodePublicKeyMultibase,
  decodePublicKeyMultibase,
  encodePrivateKeyMultibase,
  decodePrivateKeyMultibase,
  encodeBase58btc,
  decodeBase58btc,
  base58DigitsFor,
  MAX_BASE58_DIGITS,
  encodeBase64url,
  decodeBase64url,
} from './multikey.ts';
export {
  createCanonicalMemo,
  type CanonicalMemo,
  canonicalSnapshot,
  type CanonicalSnapshot,
  recallCanonical,
} from './canonical-memo.ts';
export { canonicalizeJson, canonicalBytes } from './jcs.ts';
export { parseJson, parseUnambiguousJson } from './json-parse.ts';
export { assertSafeJson } from './json-safe.ts';
export { JsonError, type JsonErrorCode, type JsonLimits, type JsonValue, type JsonObject } from './json-value.ts';
export { sha256, digestMultibase, verifyDigestMultibase } from './hash.ts';
export {
  createProof,
  verifyProof,
  ProofError,
  type ProofErrorCode,
  type DataIntegrityProof,
  type KeyResolver,
  type CreateProofOptions,
  type VerifyProofOptions,
  type VerifiedProof,
  type SecuredDocument,
  parseDateTimeStamp,
  formatDateTimeStamp,
} from './data-integrity.ts';
export { AeadError, encrypt, decrypt, type AeadEnvelope } from './aead.ts';
export { KdfError, createPassphraseKey, derivePassphraseKey } from './kdf.ts';
