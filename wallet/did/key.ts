/**
 * did:key for Ed25519 (W3C CCG did:key Method v0.7).
 *
 *   did:key:<multibase>   multibase = 'z' + base58btc(multicodec 0xed01 ‖ 32-byte key) → "z6Mk…"
 *
 * The DID *is* the key, so resolution is pure computation: no network, no cache needed. The
 * document uses the Multikey format (did:key §3.1.2 "publicKeyFormat" Multikey, Controlled
 * Identifiers §2.2.2) with one verification method referenced from the four signing
 * relationships. Other key types (X25519 "z6LS…", secp256k1 "zQ3s…", P-256 "zDn…") are
 * refused with `invalidPublicKeyType`: Mandate signs and verifies Ed25519 only.
 */
import { getPublicKey } from '../crypto/ed25519.ts';
import {
  decodeBase58btc,
  decodePublicKeyMultibase,
  encodePublicKeyMultibase,
  MultibaseError,
} from '../crypto/multikey.ts';
import { assertEd25519PublicKey } from './public-key.ts';
import { DidError } from './errors.ts';
import { multikeyDocument } from './multikey-document.ts';
import { tryParseDid } from './parse.ts';
import { resolutionError, type DidDocument, type DidResolutionResult, type MethodResolver } from './types.ts';

const PREFIX = 'did:key:';
/** did:key §3.1.1: multibase base58btc, so 'z' followed by the Bitcoin alphabet only. */
const MULTIBASE_VALUE = /^z[1-9A-HJ-NP-Za-km-z]+$/;
/** Longest plausible value (RSA-4096 keys are ~750 characters); longer is not a did:key. */
const MAX_MULTIBASE_LENGTH = 1024;

/** The did:key of a 32-byte Ed25519 public key; invalid keys throw DidError INVALID_PUBLIC_KEY. */
export function didKeyFromPublicKey(publicKey: Uint8Array): string {
  assertEd25519PublicKey(publicKey);
  return PREFIX + encodePublicKeyMultibase(publicKey);
}

/** The did:key of the Ed25519 key pair derived from a 32-byte seed (RFC 8032 §5.1.5). */
export function didKeyFromSeed(seed: Uint8Array): string {
  return didKeyFromPublicKey(getPublicKey(seed));
}

// Multicodec varint header, for naming what a refused key is (multiformats unsigned-varint).
function multicodecOf(bytes: Uint8Array): number | undefined {
  let code = 0;
  for (let i = 0; i < 3 && i < bytes.length; i++) {
    const byte = bytes[i] as number;
    code |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return code;
  }
  return undefined;
}

const KNOWN_CODECS: Record<number, string> = {
  0xec: 'x25519-pub',
  0xe7: 'secp256k1-pub',
  0xeb: 'bls12_381-g2-pub',
  0x1200: 'p256-pub',
  0x1201: 'p384-pub',
  0x1202: 'p521-pub',
  0x1205: 'rsa-pub',
};

interface DecodeFailure {
  error: 'invalidDid' | 'invalidPublicKey' | 'invalidPublicKeyLength' | 'invalidPublicKeyType';
  message: string;
}

// did:key §3.1.2 "Decode Public Key Algorithm", reporting failures by their spec error name.
function decodeDidKeyValue(value: string): Uint8Array | DecodeFailure {
  if (value.length > MAX_MULTIBASE_LENGTH || !MULTIBASE_VALUE.test(value)) {
    return {
      error: 'invalidDid',
      message: 'did:key value must be a base58btc multibase string starting with "z" (did:key §3.1.1)',
    };
  }
  let publicKey: Uint8Array;
  try {
    publicKey = decodePublicKeyMultibase(value);
  } catch (error) {
    if (error instanceof MultibaseError && error.code === 'MULTICODEC_MISMATCH') {
      const code = multicodecOf(decodeBase58btc(value));
      const known = code === undefined ? undefined : KNOWN_CODECS[code];
      const name =
        code === undefined ? 'an unknown multicodec' : `multicodec 0x${code.toString(16)}${known ? ` (${known})` : ''}`;
      return { error: 'invalidPublicKeyType', message: `did:key holds ${name}, not an Ed25519 public key (0xed)` };
    }
    if (error instanceof MultibaseError && error.code === 'KEY_LENGTH_INVALID') {
      return { error: 'invalidPublicKeyLength', message: 'did:key Ed25519 public key must be 32 bytes' };
    }
    return { error: 'invalidDid', message: 'did:key value is not valid base58btc' };
  }
  try {
    assertEd25519PublicKey(publicKey);
  } catch (error) {
    return {
      error: 'invalidPublicKey',
      message: error instanceof DidError ? error.message : 'invalid Ed25519 public key',
    };
  }
  return publicKey;
}

function decodeDidKey(did: string): Uint8Array | DecodeFailure {
  const parsed = tryParseDid(did, { method: 'key' });
  return 'error' in parsed ? parsed : decodeDidKeyValue(parsed.id);
}

/**
 * The 32-byte Ed25519 public key a did:key (or a DID URL of one) encodes. Throws DidError
 * INVALID_DID for anything that is not a did:key, INVALID_PUBLIC_KEY for a non-Ed25519 or
 * invalid key.
 */
export function publicKeyFromDidKey(didUrl: string): Uint8Array {
  const decoded = decodeDidKey(didUrl);
  if (decoded instanceof Uint8Array) return decoded;
  throw new DidError(decoded.error === 'invalidDid' ? 'INVALID_DID' : 'INVALID_PUBLIC_KEY', decoded.message);
}

function buildDocument(publicKey: Uint8Array): DidDocument {
  const multibase = encodePublicKeyMultibase(publicKey);
  const id = PREFIX + multibase;
  return multikeyDocument(id, `${id}#${multibase}`, multibase);
}

/** did:key §3.1.2 document of an Ed25519 did:key (no network, deterministic); throws like publicKeyFromDidKey. */
export function didKeyDocument(did: string): DidDocument {
  const document = buildDocument(publicKeyFromDidKey(did));
  if (document.id !== did) throw new DidError('INVALID_DID', 'expected a did:key without path, query or fragment');
  return document;
}

/** Method resolver for `did:key` (DIF signature). Errors carry did:key §3.1.2 names. */
export const resolveDidKey: MethodResolver = (did) => new Promise((resolve) => resolve(didKeyResolution(did)));

/** The did:key resolution result, computed without I/O. */
function didKeyResolution(did: string): DidResolutionResult {
  const decoded = decodeDidKey(did);
  if (!(decoded instanceof Uint8Array)) return resolutionError(decoded.error, decoded.message);
  return {
    didDocument: buildDocument(decoded),
    didDocumentMetadata: {},
    didResolutionMetadata: { contentType: 'application/did+ld+json' },
  };
}
