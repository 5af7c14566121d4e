// Node-only facade over Digital Bazaar's independent Data Integrity stack (@digitalbazaar/vc +
// data-integrity + eddsa-jcs-2022-cryptosuite + eddsa-rdfc-2022-cryptosuite + ed25519-multikey +
// did-method-key), so interop tests and benchmarks can sign with one implementation and verify
// with the other. Every function takes `cryptosuite` ('eddsa-jcs-2022' by default, or
// 'eddsa-rdfc-2022').
//
// Everything here is offline: the document loader serves contexts from installed packages,
// did:key documents from the did:key driver, and any extra contexts the caller hands in;
// anything else throws. For eddsa-rdfc-2022 the default loader is `dbBundledDocumentLoader`,
// which serves exactly Mandate's bundled context texts (wallet/jsonld/bundled-contexts.ts), so
// both stacks canonicalize against the same definitions. Nothing DB returns leaks out untyped:
// results are parsed into `DbVerifyResult` / `DbPresentationVerifyResult`.
//
// Digital Bazaar behaviour worth knowing (pinned versions; see the interop test for proof):
// - eddsa-jcs-2022 never expands JSON-LD: the document and proof are JCS-canonicalised only, so
//   undefined terms do NOT fail verification here. eddsa-rdfc-2022 does, in safe mode: an
//   undefined term fails signing (jsonld.ValidationError) and verification.
// - eddsa-rdfc-2022 (DataIntegrityProof.canonizeProof) hashes the proof options under
//   `{'@context': document['@context'], ...proof}` — a proof's own @context would win — and adds
//   the data-integrity/v2 context to a signed document that has neither it nor VC 2.0's.
// - Both stacks use the same jsonld.js and rdf-canonize (one copy in node_modules): interop here
//   proves the suites agree on everything around canonicalization; the W3C vectors prove the
//   canonicalization itself.
// - vc.verifyCredential's default purpose (CredentialIssuancePurpose) demands that `issuer`
//   equals the verification method's controller; the W3C vector's issuer is an https URL and its
//   key a did:key, so it only verifies with `issuerMustControlKey: false` (plain assertionMethod).
// - vc.verify (presentations) REJECTS instead of resolving {verified:false} on a malformed VP or a
//   missing challenge; the facade turns that into `{verified:false, error}`.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { base58btc } from 'multiformats/bases/base58';
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import type { DbRemoteDocument, DbSigner } from '@digitalbazaar/data-integrity';
import { createSignCryptosuite, createVerifyCryptosuite } from '@digitalbazaar/eddsa-jcs-2022-cryptosuite';
import { cryptosuite as eddsaRdfc2022Cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import type { DbEd25519KeyPair, DbEd25519MultikeyInput } from '@digitalbazaar/ed25519-multikey';
import * as DidKey from '@digitalbazaar/did-method-key';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import dataIntegrityContext from '@digitalbazaar/data-integrity-context';
import multikeyContext from '@digitalbazaar/multikey-context';
import { BUNDLED_CONTEXT_TEXTS } from '../../wallet/jsonld/document-loader.ts';

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

export type DbDocumentLoader = (url: string) => Promise<DbRemoteDocument>;
export type { DbRemoteDocument };

/** The Digital Bazaar cryptosuite a facade function signs or verifies with. */
export type DbCryptosuiteName = 'eddsa-jcs-2022' | 'eddsa-rdfc-2022';

/** A Data Integrity proof as Digital Bazaar emits it (eddsa-jcs-2022 or eddsa-rdfc-2022). */
export interface DbProof {
  type: 'DataIntegrityProof';
  cryptosuite: string;
  created?: string;
  expires?: string;
  verificationMethod: string;
  proofPurpose: string;
  /** DB always copies the secured document's `@context` here when signing with JCS (never with RDFC). */
  '@context'?: unknown;
  challenge?: string;
  domain?: string | string[];
  proofValue: string;
}

export type DbSigned<T extends object> = T & { proof: DbProof };

/** An Ed25519 Multikey whose id/controller are its did:key. */
export interface DbKeyPair {
  /** `did:key:z6Mk…#z6Mk…` — what goes in `proof.verificationMethod`. */
  readonly id: string;
  /** `did:key:z6Mk…` — use as `issuer` / `holder`. */
  readonly controller: string;
  readonly publicKeyMultibase: string;
  /** Raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** Digital Bazaar signer bound to `id` (for building DataIntegrityProof suites). */
  signer(): DbSigner;
}

export interface DbVerifyResult {
  verified: boolean;
  /** On failure: every nested DB error message joined with "; " (original in `cause`). */
  error?: Error;
}

export interface DbPresentationVerifyResult extends DbVerifyResult {
  /** The presentation's own proof (authentication purpose, challenge, domain). */
  presentationVerified: boolean;
  /** One per `verifiableCredential` entry, in order. */
  credentialResults: DbVerifyResult[];
}

export interface DbSignOptions {
  /** Proof `created`; default now; `null` omits `created` (it is optional in DI). */
  created?: string | Date | null;
  /** Proof `expires` (DB only checks its format when verifying, never the time). */
  expires?: string;
  /** Default: `dbDocumentLoader()` for eddsa-jcs-2022, `dbBundledDocumentLoader()` for eddsa-rdfc-2022. */
  documentLoader?: DbDocumentLoader;
  /** Default 'eddsa-jcs-2022'. */
  cryptosuite?: DbCryptosuiteName;
}

export interface DbVerifyOptions {
  /** Default: as for DbSignOptions. */
  documentLoader?: DbDocumentLoader;
  /** The one cryptosuite DB accepts (default 'eddsa-jcs-2022'); proofs of another are not found. */
  cryptosuite?: DbCryptosuiteName;
  /** Clock for validFrom/validUntil checks (DB allows 300 s of skew). */
  now?: Date | string;
  /**
   * true (DB's default, CredentialIssuancePurpose): `issuer` must equal the verification
   * method's controller. false: only require the key to be an `assertionMethod` of its controller.
   */
  issuerMustControlKey?: boolean;
  /** DB refuses to verify a credential with credentialStatus unless it is given this hook. */
  checkStatus?: vc.DbCheckStatus;
}

// ---------------------------------------------------------------------------------------------
// Document loader
// ---------------------------------------------------------------------------------------------

export const VC_V2_CONTEXT_URL = 'https://www.w3.org/ns/credentials/v2';
export const DATA_INTEGRITY_V2_CONTEXT_URL = 'https://w3id.org/security/data-integrity/v2';
export const MULTIKEY_V1_CONTEXT_URL = 'https://w3id.org/security/multikey/v1';
export const VC_EXAMPLES_V2_CONTEXT_URL = 'https://www.w3.org/ns/credentials/examples/v2';

/**
 * The W3C "examples" context the official vectors use. No package ships it; it is published by
 * the W3C as a single catch-all vocabulary, reproduced here.
 */
const VC_EXAMPLES_V2_CONTEXT = Object.freeze({
  '@context': { '@vocab': 'https://www.w3.org/ns/credentials/examples#' },
});

function builtinContexts(): Map<string, object> {
  const map = new Map<string, object>();
  for (const [url, doc] of credentialsContexts) map.set(url, doc);
  for (const [url, doc] of dataIntegrityContext.contexts) map.set(url, doc);
  for (const [url, doc] of multikeyContext.contexts) map.set(url, doc);
  map.set(VC_EXAMPLES_V2_CONTEXT_URL, VC_EXAMPLES_V2_CONTEXT);
  for (const url of [VC_V2_CONTEXT_URL, DATA_INTEGRITY_V2_CONTEXT_URL, MULTIKEY_V1_CONTEXT_URL]) {
    if (!map.has(url)) throw new Error(`digitalbazaar harness: installed packages lack ${url}`);
  }
  return map;
}
const BUILTIN_CONTEXTS = builtinContexts();

const didKeyDriver = DidKey.driver();
didKeyDriver.use({
  // Ed25519 public keys as multibase base58btc multicodec start with "z6Mk".
  multibaseMultikeyHeader: 'z6Mk',
  fromMultibase: (key: DbEd25519MultikeyInput) => Ed25519Multikey.from(key),
});

/**
 * Offline JSON-LD document loader: VC v1/v2, data-integrity v1/v2, multikey v1 and the W3C
 * examples v2 contexts from installed packages; `did:key:z6Mk…` DID documents and verification
 * methods from the did:key driver; plus `extraContexts` (URL → full context document, i.e. an
 * object with an `@context` key, e.g. Mandate's own context). Any other URL throws.
 */
export function dbDocumentLoader(extraContexts: Record<string, object> = {}): DbDocumentLoader {
  const extras = new Map<string, object>();
  for (const [url, doc] of Object.entries(extraContexts)) {
    if (BUILTIN_CONTEXTS.has(url)) {
      throw new TypeError(`dbDocumentLoader: ${url} is built in and cannot be replaced`);
    }
    if (typeof doc !== 'object' || doc === null || !('@context' in doc)) {
      throw new TypeError(`dbDocumentLoader: extra context ${url} must be a document with an "@context" key`);
    }
    extras.set(url, structuredClone(doc));
  }

  return async (url: string): Promise<DbRemoteDocument> => {
    const context = BUILTIN_CONTEXTS.get(url) ?? extras.get(url);
    if (context !== undefined) return { contextUrl: null, documentUrl: url, document: context };
    if (url.startsWith('did:key:z6Mk')) {
      // A bare DID gives the DID document; a DID URL with #fragment gives the key itself.
      const document = await didKeyDriver.get({ url });
      return { contextUrl: null, documentUrl: url, document };
    }
    throw new Error(`dbDocumentLoader: refusing to load "${url}" (offline: not a known context or did:key)`);
  };
}

const defaultLoader = dbDocumentLoader();

/**
 * Offline loader for eddsa-rdfc-2022 interop: Mandate's bundled contexts (the exact texts of
 * wallet/jsonld/bundled-contexts.ts, parsed afresh on each load) and `did:key:z6Mk…` documents;
 * any other URL throws. So both stacks expand every document against the same definitions.
 */
export function dbBundledDocumentLoader(): DbDocumentLoader {
  return async (url: string): Promise<DbRemoteDocument> => {
    const text = BUNDLED_CONTEXT_TEXTS.get(url);
    if (text !== undefined) return { contextUrl: null, documentUrl: url, document: JSON.parse(text) as object };
    if (url.startsWith('did:key:z6Mk')) {
      return { contextUrl: null, documentUrl: url, document: await didKeyDriver.get({ url }) };
    }
    throw new Error(`dbBundledDocumentLoader: refusing to load "${url}" (offline: not a bundled context or did:key)`);
  };
}

const bundledLoader = dbBundledDocumentLoader();

function loaderFor(options: { documentLoader?: DbDocumentLoader; cryptosuite?: DbCryptosuiteName }): DbDocumentLoader {
  return options.documentLoader ?? (options.cryptosuite === 'eddsa-rdfc-2022' ? bundledLoader : defaultLoader);
}

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

const ED25519_PUB = [0xed, 0x01] as const;
const ED25519_PRIV = [0x80, 0x26] as const;
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function wrapKeyPair(key: DbEd25519KeyPair): DbKeyPair {
  const controller = `did:key:${key.publicKeyMultibase}`;
  const id = `${controller}#${key.publicKeyMultibase}`;
  // The DB signer closes over this same object, so setting id here fixes the signer's id too.
  key.id = id;
  key.controller = controller;
  return Object.freeze({
    id,
    controller,
    publicKeyMultibase: key.publicKeyMultibase,
    publicKey: Uint8Array.from(key.publicKey),
    signer: () => key.signer(),
  });
}

/** Ed25519 key pair from a 32-byte seed (RFC 8032 private key), derived by Digital Bazaar's code. */
export async function dbKeyPairFromSeed(seed: Uint8Array): Promise<DbKeyPair> {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) {
    throw new TypeError('dbKeyPairFromSeed: seed must be 32 bytes');
  }
  return wrapKeyPair(await Ed25519Multikey.generate({ seed: Uint8Array.from(seed) }));
}

function decodeMulticodec(value: string, header: readonly [number, number], what: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = base58btc.decode(value);
  } catch (cause) {
    throw new TypeError(`${what} is not multibase base58btc`, { cause });
  }
  if (bytes[0] !== header[0] || bytes[1] !== header[1]) {
    throw new TypeError(`${what} does not carry the expected Ed25519 multicodec header`);
  }
  return bytes.subarray(2);
}

/**
 * Ed25519 key pair from Multikey multibase strings, as in the W3C vectors' keyPair.json
 * (`privateKeyMultibase`) or DB's own export (`secretKeyMultibase`). The secret must be the
 * 32-byte seed (or DB's 64-byte seed‖public form) and must match the public key: DB itself checks
 * neither the multicodec headers nor that match, and would sign garbage silently.
 */
export async function dbKeyPairFromMultibase(input: {
  publicKeyMultibase: string;
  privateKeyMultibase?: string;
  secretKeyMultibase?: string;
}): Promise<DbKeyPair> {
  const { publicKeyMultibase } = input;
  const secretKeyMultibase = input.privateKeyMultibase ?? input.secretKeyMultibase;
  if (secretKeyMultibase === undefined) {
    throw new TypeError('dbKeyPairFromMultibase: privateKeyMultibase (or secretKeyMultibase) is required');
  }
  const publicKey = decodeMulticodec(publicKeyMultibase, ED25519_PUB, 'publicKeyMultibase');
  const secret = decodeMulticodec(secretKeyMultibase, ED25519_PRIV, 'privateKeyMultibase');
  if (publicKey.length !== 32) throw new TypeError('publicKeyMultibase: expected a 32-byte key');
  if (secret.length !== 32 && secret.length !== 64) {
    throw new TypeError('privateKeyMultibase: expected a 32-byte seed (or 64-byte seed‖public)');
  }
  const derived = createPublicKey(
    createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, secret.subarray(0, 32)]),
      format: 'der',
      type: 'pkcs8',
    }),
  )
    .export({ format: 'der', type: 'spki' })
    .subarray(-32);
  if (!Buffer.from(publicKey).equals(derived)) {
    throw new TypeError('dbKeyPairFromMultibase: private key does not match publicKeyMultibase');
  }
  return wrapKeyPair(
    await Ed25519Multikey.from({
      '@context': MULTIKEY_V1_CONTEXT_URL,
      type: 'Multikey',
      publicKeyMultibase,
      secretKeyMultibase,
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Signing
// ---------------------------------------------------------------------------------------------

function signSuite(keyPair: DbKeyPair, options: DbSignOptions): DataIntegrityProof {
  const suite = new DataIntegrityProof({
    signer: keyPair.signer(),
    cryptosuite: options.cryptosuite === 'eddsa-rdfc-2022' ? eddsaRdfc2022Cryptosuite : createSignCryptosuite(),
    ...(options.created !== undefined ? { date: options.created } : {}),
  });
  if (options.expires !== undefined) suite.proof = { expires: options.expires };
  return suite;
}

function unsignedCopy<T extends object>(document: T, fn: string): T {
  if ('proof' in document) {
    throw new TypeError(`${fn}: document already has a proof (proof sets/chains are not supported here)`);
  }
  // DB mutates its input (adds `proof`, may add a suite context): never hand it the caller's object.
  return structuredClone(document);
}

/** Issue: Digital Bazaar `vc.issue` with a DataIntegrityProof (assertionMethod; eddsa-jcs-2022 unless told). */
export async function dbIssue<T extends object>(
  credential: T,
  keyPair: DbKeyPair,
  options: DbSignOptions = {},
): Promise<DbSigned<T>> {
  const signed = await vc.issue({
    credential: unsignedCopy(credential, 'dbIssue'),
    suite: signSuite(keyPair, options),
    documentLoader: loaderFor(options),
  });
  return signed as DbSigned<T>;
}

/** Sign a VP: Digital Bazaar `vc.signPresentation` (authentication purpose, challenge, domain). */
export async function dbSignPresentation<T extends object>(
  presentation: T,
  keyPair: DbKeyPair,
  options: DbSignOptions & { challenge: string; domain?: string },
): Promise<DbSigned<T>> {
  const signed = await vc.signPresentation({
    presentation: unsignedCopy(presentation, 'dbSignPresentation'),
    suite: signSuite(keyPair, options),
    documentLoader: loaderFor(options),
    challenge: options.challenge,
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
  });
  return signed as DbSigned<T>;
}

// ---------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------

/** jsonld-signatures' AssertionProofPurpose, reached through vc's CredentialIssuancePurpose. */
function assertionProofPurpose(): vc.DbProofPurpose {
  // Not a dependency of ours directly; CredentialIssuancePurpose extends it.
  const Base: unknown = Object.getPrototypeOf(vc.CredentialIssuancePurpose);
  if (typeof Base !== 'function' || Base.name !== 'AssertionProofPurpose') {
    throw new Error('digitalbazaar harness: cannot find AssertionProofPurpose');
  }
  const purpose: unknown = Reflect.construct(Base, []);
  return purpose as vc.DbProofPurpose;
}

function verifySuite(cryptosuite: DbCryptosuiteName | undefined): DataIntegrityProof {
  return new DataIntegrityProof({
    cryptosuite: cryptosuite === 'eddsa-rdfc-2022' ? eddsaRdfc2022Cryptosuite : createVerifyCryptosuite(),
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Every message in DB's nested error shapes (Error, VerificationError.errors, arrays, results). */
function errorMessages(value: unknown, out: string[] = [], seen = new Set<unknown>()): string[] {
  if (value === undefined || value === null || seen.has(value)) return out;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const v of value) errorMessages(v, out, seen);
    return out;
  }
  if (value instanceof Error) {
    const nested = (value as Error & { errors?: unknown }).errors;
    if (Array.isArray(nested) && nested.length > 0) errorMessages(nested, out, seen);
    else if (value.message && !out.includes(value.message)) out.push(value.message);
    return out;
  }
  if (isRecord(value)) {
    errorMessages(value.error, out, seen);
    errorMessages(value.results, out, seen);
    errorMessages(value.purposeResult, out, seen);
    return out;
  }
  out.push(typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'));
  return out;
}

function toResult(raw: unknown): DbVerifyResult {
  const verified = isRecord(raw) && raw.verified === true;
  if (verified) return { verified };
  const messages = errorMessages(raw);
  return {
    verified: false,
    error: new Error(messages.length > 0 ? messages.join('; ') : 'not verified (no error given)', { cause: raw }),
  };
}

function credentialPurpose(options: DbVerifyOptions): vc.DbProofPurpose | undefined {
  return options.issuerMustControlKey === false ? assertionProofPurpose() : undefined;
}

/** Verify a credential with Digital Bazaar `vc.verifyCredential` (with `options.cryptosuite` only). */
export async function dbVerifyCredential(credential: object, options: DbVerifyOptions = {}): Promise<DbVerifyResult> {
  const purpose = credentialPurpose(options);
  try {
    const raw = await vc.verifyCredential({
      credential: structuredClone(credential),
      suite: verifySuite(options.cryptosuite),
      documentLoader: loaderFor(options),
      ...(purpose ? { purpose } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
      ...(options.checkStatus ? { checkStatus: options.checkStatus } : {}),
    });
    return toResult(raw);
  } catch (error) {
    return toResult({ verified: false, error });
  }
}

/**
 * Verify a VP with Digital Bazaar `vc.verify`: the VP proof (authentication, `challenge` must be
 * equal, `domain` must be equal or included when given) and every embedded credential.
 */
export async function dbVerifyPresentation(
  presentation: object,
  options: DbVerifyOptions & { challenge: string; domain?: string },
): Promise<DbPresentationVerifyResult> {
  const purpose = credentialPurpose(options);
  let raw: unknown;
  try {
    raw = await vc.verify({
      presentation: structuredClone(presentation),
      suite: verifySuite(options.cryptosuite),
      documentLoader: loaderFor(options),
      challenge: options.challenge,
      ...(options.domain !== undefined ? { domain: options.domain } : {}),
      ...(purpose ? { purpose } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
      ...(options.checkStatus ? { checkStatus: options.checkStatus } : {}),
    });
  } catch (error) {
    // vc.verify rejects (rather than resolving {verified:false}) on a malformed presentation.
    return { ...toResult({ verified: false, error }), presentationVerified: false, credentialResults: [] };
  }
  const record = isRecord(raw) ? raw : {};
  const presentation_ = toResult(record.presentationResult);
  const credentialResults = Array.isArray(record.credentialResults) ? record.credentialResults.map(toResult) : [];
  const verified = record.verified === true && presentation_.verified && credentialResults.every((r) => r.verified);
  if (verified) return { verified, presentationVerified: true, credentialResults };
  const messages = [
    ...(presentation_.error ? [`presentation: ${presentation_.error.message}`] : []),
    ...credentialResults.flatMap((r, i) => (r.error ? [`credential ${i}: ${r.error.message}`] : [])),
  ];
  return {
    verified: false,
    presentationVerified: presentation_.verified,
    credentialResults,
    error: new Error(messages.length > 0 ? messages.join('; ') : 'not verified (no error given)', { cause: raw }),
  };
}
