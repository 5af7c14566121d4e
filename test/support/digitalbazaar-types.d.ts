// Local type declarations for Digital Bazaar's untyped packages, used ONLY by the interop and
// benchmark harness (test/support/digitalbazaar.ts, bench/digitalbazaar.ts). Declares just the
// surface those files call, with the shapes the pinned versions really have (see package.json
// devDependencies). Results of verification are typed `unknown` where Digital Bazaar returns
// loosely-shaped objects: the facade parses them rather than trusting a declared shape.
//
// This file is a script (no top-level import/export), so each `declare module` is ambient.

declare module '@digitalbazaar/data-integrity' {
  /** What `documentLoader(url)` resolves to (JSON-LD RemoteDocument, as jsonld.js uses it). */
  export interface DbRemoteDocument {
    contextUrl: string | null;
    documentUrl: string;
    document: object;
  }
  export type DbDocumentLoaderFn = (url: string) => Promise<DbRemoteDocument>;

  export interface DbSigner {
    readonly id: string;
    readonly algorithm: string;
    sign(args: { data: Uint8Array }): Promise<Uint8Array>;
  }

  /** An eddsa-jcs-2022 (or other) cryptosuite object as created by the cryptosuite package. */
  export interface DbCryptosuite {
    readonly name: string;
    readonly requiredAlgorithm: string | string[];
  }

  export class DataIntegrityProof {
    constructor(options: {
      signer?: DbSigner;
      /** `created`: a Date/string, or `null` to omit `created` entirely. */
      date?: string | Date | number | null;
      cryptosuite: DbCryptosuite;
      legacyContext?: boolean;
    });
    readonly type: 'DataIntegrityProof';
    readonly cryptosuite: string;
    verificationMethod: string | undefined;
    /** Extra proof options merged into every proof this suite creates (e.g. `expires`). */
    proof?: Record<string, unknown>;
  }
}

declare module '@digitalbazaar/eddsa-jcs-2022-cryptosuite' {
  import type { DbCryptosuite } from '@digitalbazaar/data-integrity';
  /** Only for signing: its `createVerifier` throws. */
  export function createSignCryptosuite(): DbCryptosuite;
  /** Only for verifying: it checks proof.@context is a prefix of document.@context. */
  export function createVerifyCryptosuite(): DbCryptosuite;
}

declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  import type { DbCryptosuite } from '@digitalbazaar/data-integrity';
  /**
   * eddsa-rdfc-2022, for signing and verifying: `canonize` is jsonld.toRDF (safe mode, base
   * null, rdfDirection i18n-datatype) then rdf-canonize RDFC-1.0 (default maxWorkFactor 1).
   */
  export const cryptosuite: DbCryptosuite;
}

declare module '@digitalbazaar/ed25519-multikey' {
  import type { DbSigner } from '@digitalbazaar/data-integrity';
  export interface DbEd25519MultikeyInput {
    '@context'?: string | string[];
    type?: 'Multikey';
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    secretKeyMultibase?: string;
  }
  export interface DbEd25519KeyPair {
    id: string | undefined;
    controller: string | undefined;
    readonly publicKeyMultibase: string;
    readonly secretKeyMultibase?: string;
    readonly publicKey: Uint8Array;
    readonly secretKey?: Uint8Array;
    signer(): DbSigner;
    export(options?: {
      publicKey?: boolean;
      secretKey?: boolean;
      includeContext?: boolean;
    }): Promise<Record<string, unknown>>;
  }
  export function generate(options?: {
    id?: string;
    controller?: string;
    seed?: Uint8Array;
  }): Promise<DbEd25519KeyPair>;
  export function from(key: DbEd25519MultikeyInput): Promise<DbEd25519KeyPair>;
}

declare module '@digitalbazaar/did-method-key' {
  import type { DbEd25519KeyPair, DbEd25519MultikeyInput } from '@digitalbazaar/ed25519-multikey';
  export class DidKeyDriver {
    use(options: {
      multibaseMultikeyHeader: string;
      fromMultibase: (key: DbEd25519MultikeyInput) => Promise<DbEd25519KeyPair>;
    }): void;
    /** A DID document for a bare DID; the verification method object for a DID URL with fragment. */
    get(options: { did?: string; url?: string }): Promise<Record<string, unknown>>;
  }
  export function driver(): DidKeyDriver;
}

declare module '@digitalbazaar/vc' {
  import type { DataIntegrityProof, DbDocumentLoaderFn } from '@digitalbazaar/data-integrity';

  /** A jsonld-signatures ProofPurpose instance (opaque to the facade). */
  export interface DbProofPurpose {
    readonly term: string;
  }
  export class CredentialIssuancePurpose implements DbProofPurpose {
    constructor(options?: { controller?: object; date?: string | Date | number; maxTimestampDelta?: number });
    readonly term: string;
  }

  export function issue(options: {
    credential: object;
    suite: DataIntegrityProof;
    documentLoader: DbDocumentLoaderFn;
    purpose?: DbProofPurpose;
    now?: string | Date;
    maxClockSkew?: number;
  }): Promise<Record<string, unknown>>;

  export function signPresentation(options: {
    presentation: object;
    suite: DataIntegrityProof;
    documentLoader: DbDocumentLoaderFn;
    challenge: string;
    domain?: string;
    purpose?: DbProofPurpose;
  }): Promise<Record<string, unknown>>;

  export function verifyCredential(options: {
    credential: object;
    suite: DataIntegrityProof | DataIntegrityProof[];
    documentLoader: DbDocumentLoaderFn;
    purpose?: DbProofPurpose;
    now?: string | Date;
    maxClockSkew?: number;
    /** Required by DB for credentials with credentialStatus; called after the proof verified. */
    checkStatus?: DbCheckStatus;
  }): Promise<unknown>;

  export type DbCheckStatus = (options: { credential: Record<string, unknown> }) => Promise<{ verified: boolean }>;

  /** Presentation verification. NB: can REJECT (not resolve `{verified:false}`) on a malformed VP. */
  export function verify(options: {
    presentation: object;
    suite: DataIntegrityProof | DataIntegrityProof[];
    documentLoader: DbDocumentLoaderFn;
    challenge?: string;
    domain?: string;
    /** Purpose for the embedded credentials' proofs (default: CredentialIssuancePurpose). */
    purpose?: DbProofPurpose;
    unsignedPresentation?: boolean;
    now?: string | Date;
    maxClockSkew?: number;
    checkStatus?: DbCheckStatus;
  }): Promise<unknown>;
}

declare module '@digitalbazaar/credentials-context' {
  /** Context URL → context document (VC v1, VC v2, undefined-terms v2). */
  export const contexts: Map<string, object>;
}

declare module '@digitalbazaar/data-integrity-context' {
  const api: { readonly contexts: Map<string, object> };
  export default api;
}

declare module '@digitalbazaar/multikey-context' {
  const api: { readonly contexts: Map<string, object> };
  export default api;
}

declare module 'jsonld' {
  /** JSON-LD 1.1 expansion; with `safe: true` any dropped or undefined term is an error. */
  export function expand(
    input: object,
    options: {
      documentLoader: (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: object }>;
      safe?: boolean;
    },
  ): Promise<object[]>;
}
