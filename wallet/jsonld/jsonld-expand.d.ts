// Types for `jsonld.expand` (jsonld 9.0.0), beside `canonize` in ../crypto/jsonld.d.ts: the
// declarations of one ambient module merge. Only the options rules.ts passes are listed.

declare module 'jsonld' {
  export interface JsonLdExpandOptions {
    documentLoader: JsonLdDocumentLoader;
    /** Throw on every JSON-LD "safe mode" event (a term that would be dropped, a relative IRI, …). */
    safe: true;
    /** No base IRI: a relative IRI stays relative, and safe mode refuses it. */
    base: null;
  }

  export interface JsonLdApi {
    /** JSON-LD 1.1 API §5.1 Expansion. */
    expand(input: object, options: JsonLdExpandOptions): Promise<unknown[]>;
  }
}
