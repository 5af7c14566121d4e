/**
 * DID Core 1.0 data model and DID Resolution result types.
 *
 * The shapes follow DID Core §5 (document), §7.1 (resolution) and are structurally
 * compatible with DIF `did-resolver` (`DIDResolutionResult`, `ParsedDID`, `DIDResolver`), so a
 * method resolver written for DIF plugs into `createResolver` unchanged and ours plug into
 * theirs. Where DID Core is looser than DIF's types (a service `type` may be a set of strings,
 * `@context` may embed objects) the DIF-compatible narrower type is used and the runtime
 * validator in `document.ts` still accepts what DID Core allows.
 */

/** DID Core §5.3 verification relationships. */
export type VerificationRelationship =
  'authentication' | 'assertionMethod' | 'keyAgreement' | 'capabilityInvocation' | 'capabilityDelegation';

/** The relationships in the order DID Core §5.3 lists them. */
export const VERIFICATION_RELATIONSHIPS: readonly VerificationRelationship[] = /* @__PURE__ */ Object.freeze([
  'authentication',
  'assertionMethod',
  'keyAgreement',
  'capabilityInvocation',
  'capabilityDelegation',
]);

/** DID Core §5.2 / Controlled Identifiers §2.2 verification method. Mandate's own are `Multikey`. */
export interface VerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyMultibase?: string;
  publicKeyJwk?: PublicKeyJwk;
  /** Controlled Identifiers §2.2: XML dateTime after which the method must not be used. */
  expires?: string;
  /** Controlled Identifiers §2.2: XML dateTime at which the method was revoked. */
  revoked?: string;
}

/** RFC 7517 JSON Web Key as a verification method carries it (DID Core §5.2.1). */
export interface PublicKeyJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  kid?: string;
  alg?: string;
  [property: string]: unknown;
}

/** DID Core §5.4 service (DIF-compatible: `type` is one string). */
export interface Service {
  id: string;
  type: string;
  serviceEndpoint: ServiceEndpoint | ServiceEndpoint[];
  [property: string]: unknown;
}

export type ServiceEndpoint = string | Record<string, unknown>;

/** A relationship entry: a DID URL reference to a method, or an embedded method (DID Core §5.3). */
export type VerificationMethodEntry = string | VerificationMethod;

/** DID Core §4–5 DID document. */
export interface DidDocument {
  '@context'?: string | string[];
  id: string;
  controller?: string | string[];
  alsoKnownAs?: string[];
  verificationMethod?: VerificationMethod[];
  authentication?: VerificationMethodEntry[];
  assertionMethod?: VerificationMethodEntry[];
  keyAgreement?: VerificationMethodEntry[];
  capabilityInvocation?: VerificationMethodEntry[];
  capabilityDelegation?: VerificationMethodEntry[];
  service?: Service[];
}

/**
 * DID Resolution error names (DID Core §7.1.2, DID Resolution §4 and the did:key / did:web
 * method specifications). Other strings from foreign method resolvers pass through.
 */
export type DidResolutionErrorName =
  | 'invalidDid'
  | 'notFound'
  | 'methodNotSupported'
  | 'representationNotSupported'
  | 'invalidDidDocument'
  | 'invalidPublicKey'
  | 'invalidPublicKeyLength'
  | 'invalidPublicKeyType'
  | 'internalError';

/** DID Core §7.1.2 resolution metadata, plus Mandate's cache fields (see `cache.ts`). */
export interface DidResolutionMetadata {
  contentType?: string;
  error?: DidResolutionErrorName | (string & {});
  /** Human-readable detail of `error`; never contains secrets. */
  message?: string;
  /** When the result was produced by the method resolver (ISO 8601), set by the cache. */
  retrieved?: string;
  /** Age in ms of the result at the moment it was returned, set by the cache. */
  ageMs?: number;
  /** True when the result came out of the cache rather than a fresh resolution. */
  cached?: boolean;
  [property: string]: unknown;
}

/** DID Core §7.1.3 document metadata. */
export interface DidDocumentMetadata {
  created?: string;
  updated?: string;
  deactivated?: boolean;
  versionId?: string;
  nextUpdate?: string;
  nextVersionId?: string;
  [property: string]: unknown;
}

/** DID Core §7.1 resolve() result. `didDocument` is null whenever `error` is set. */
export interface DidResolutionResult {
  '@context'?: string | string[];
  didDocument: DidDocument | null;
  didDocumentMetadata: DidDocumentMetadata;
  didResolutionMetadata: DidResolutionMetadata;
}

/** DID Core §7.1.1 resolution options (`accept`), plus `noCache` to bypass a cache read. */
export interface DidResolutionOptions {
  accept?: string;
  noCache?: boolean;
  [property: string]: unknown;
}

/** A DID URL split into its DID Core §3.1–3.2 parts (DIF `ParsedDID`). */
export interface ParsedDid {
  /** The DID alone: `did:method:id`. */
  did: string;
  /** The whole input. */
  didUrl: string;
  method: string;
  /** Method-specific identifier. */
  id: string;
  /** Path including its leading "/". */
  path?: string;
  /** Query without "?". */
  query?: string;
  /** Fragment without "#". */
  fragment?: string;
  /** DIF field for pre-1.0 DID parameters; Mandate never sets it. */
  params?: Record<string, string>;
}

/** Anything that resolves DIDs (DIF `Resolvable`). */
export interface Resolvable {
  resolve(didUrl: string, options?: DidResolutionOptions): Promise<DidResolutionResult>;
  /**
   * The result `resolve` would give right now from memory (a cached resolver's fresh entry),
   * or undefined when it would have to do work. Optional; a verifier reads the DIDs of every
   * presentation and uses this to skip a round of promises per DID when it is there.
   */
  resolveCached?(didUrl: string): DidResolutionResult | undefined;
  /**
   * The DID resolved again past the cache, unless the cached result is younger than the
   * resolver's cooldown (then that result). Optional; a verifier calls it when a proof names a
   * key its cached document lacks — a key rotated in since — so a rotation is seen at once, while
   * forged key ids cost at most one fetch per cooldown.
   */
  refresh?(didUrl: string): Promise<DidResolutionResult>;
}

/** A DID method resolver, DIF `DIDResolver` signature. */
export type MethodResolver = (
  did: string,
  parsed: ParsedDid,
  resolver: Resolvable,
  options: DidResolutionOptions,
) => Promise<DidResolutionResult>;

/** Builds the result of a failed resolution (DID Core §7.1: no document, error in metadata). */
export function resolutionError(error: DidResolutionErrorName, message: string): DidResolutionResult {
  return { didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error, message } };
}
