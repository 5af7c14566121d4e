// Types for the part of `jsonld` (Digital Bazaar's jsonld.js, pinned at 9.0.0, which ships
// none) that eddsa-rdfc-2022.ts calls: `canonize`. Declared from lib/jsonld.js and
// rdf-canonize 5.0.0's lib/index.js of those versions; only the options Mandate passes are
// listed, each with the values it passes, so a call that strays from them does not compile.
//
// This file is a script (no top-level import/export), so the `declare module` is ambient. It
// lives with its one caller, in the crypto core; tsconfig.json includes it with the tree and
// tsconfig.lib.json lists it in "files" so the library build sees it too. Other layers may
// declare what they call next to `canonize` (wallet/jsonld/jsonld-expand.d.ts).

declare module 'jsonld' {
  /** What a document loader resolves to (JSON-LD 1.1 API §9.4.3 RemoteDocument). */
  export interface JsonLdRemoteDocument {
    contextUrl: string | null;
    documentUrl: string;
    /** A parsed JSON document (jsonld.js also accepts its text). */
    document: unknown;
  }

  export type JsonLdDocumentLoader = (url: string) => Promise<JsonLdRemoteDocument>;

  /** rdf-canonize 5 `canonize` options (jsonld 9 passes `canonizeOptions` through unchanged). */
  export interface RdfCanonizeOptions {
    algorithm: 'RDFC-1.0';
    format: 'application/n-quads';
    /** Deep iterations allowed: (non-unique blank nodes) ** maxWorkFactor. Default 1. */
    maxWorkFactor: number;
    /** Refuse the deprecated "URDNA2015" name rather than treat it as RDFC-1.0. */
    rejectURDNA2015?: boolean;
  }

  /** `jsonld.canonize` options: those of `toRDF`, plus `canonizeOptions` for rdf-canonize. */
  export interface JsonLdCanonizeOptions {
    documentLoader: JsonLdDocumentLoader;
    /** Throw on every JSON-LD "safe mode" event (a term that would be dropped, a relative IRI, …). */
    safe: true;
    /** No base IRI: a relative IRI stays relative, and safe mode refuses it. */
    base: null;
    /** How `@direction` becomes RDF (JSON-LD 1.1 API §8.6.1; null refuses it in safe mode). */
    rdfDirection: 'i18n-datatype';
    produceGeneralizedRdf: false;
    canonizeOptions: RdfCanonizeOptions;
  }

  export interface JsonLdApi {
    /** JSON-LD → RDF dataset (toRDF) → RDFC-1.0 canonical N-Quads. */
    canonize(input: object, options: JsonLdCanonizeOptions): Promise<string>;
  }

  /** jsonld.js is CommonJS: under Node's ESM loader only the default export exists. */
  const jsonld: JsonLdApi;
  export default jsonld;
}
