/**
 * The JSON-LD document loader of Mandate's Node-side JSON-LD work (eddsa-rdfc-2022, the VC-API's
 * JSON-LD rules): the bundled contexts and nothing else. A context URL it does not know is
 * refused, never fetched — a verifier that fetched the contexts a document names would let the
 * document's author choose what its terms mean at verification time, and reach any host.
 */
import { MandateError } from '../crypto/errors.ts';
import type { JsonLdRule } from '../crypto/jsonld-refusal.ts';
import {
  DATA_INTEGRITY_V2_TEXT,
  DATA_INTEGRITY_V2_URL,
  MULTIKEY_V1_TEXT,
  MULTIKEY_V1_URL,
  VC_EXAMPLES_V2_TEXT,
  VC_EXAMPLES_V2_URL,
  VC_V1_TEXT,
  VC_V1_URL,
  VC_V2_TEXT,
  VC_V2_URL,
} from './bundled-contexts.ts';
import { MANDATE_CONTEXT, MANDATE_CONTEXT_URL } from './mandate-context.ts';

/** The JSON-LD rules (crypto/jsonld-refusal.ts), and a related resource whose digest does not match. */
export type JsonLdErrorCode = JsonLdRule | 'RELATED_RESOURCE_DIGEST_MISMATCH';

/** A document that breaks a JSON-LD rule (rules.ts), or names a context that is not bundled. */
export class JsonLdError extends MandateError<JsonLdErrorCode> {
  override name = 'JsonLdError';
}

/** What a JSON-LD document loader resolves to (JSON-LD 1.1 API §9.4.3 RemoteDocument). */
export interface RemoteDocument {
  contextUrl: null;
  documentUrl: string;
  document: unknown;
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/** The exact text served at each bundled URL: what a relatedResource digest is computed over. */
export const BUNDLED_CONTEXT_TEXTS: ReadonlyMap<string, string> = new Map([
  [VC_V2_URL, VC_V2_TEXT],
  [VC_V1_URL, VC_V1_TEXT],
  [VC_EXAMPLES_V2_URL, VC_EXAMPLES_V2_TEXT],
  [DATA_INTEGRITY_V2_URL, DATA_INTEGRITY_V2_TEXT],
  [MULTIKEY_V1_URL, MULTIKEY_V1_TEXT],
  // As the issuer serves it at /contexts/mandate/v1.
  [MANDATE_CONTEXT_URL, JSON.stringify(MANDATE_CONTEXT)],
]);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

// Parsed once, on first use, and frozen: every load hands out the same document.
let parsed: Map<string, unknown> | undefined;

function parsedContexts(): Map<string, unknown> {
  parsed ??= new Map([...BUNDLED_CONTEXT_TEXTS].map(([url, text]) => [url, deepFreeze(JSON.parse(text) as unknown)]));
  return parsed;
}

/** True when `url` names a bundled context. */
export function isBundledContext(url: string): boolean {
  return BUNDLED_CONTEXT_TEXTS.has(url);
}

/** Resolves the bundled contexts; rejects every other URL with JSONLD_CONTEXT_UNKNOWN. */
export const bundledDocumentLoader: DocumentLoader = (url) => new Promise((resolve) => resolve(loadBundled(url)));

function loadBundled(url: string): RemoteDocument {
  const document = parsedContexts().get(url);
  if (document === undefined) {
    throw new JsonLdError(
      'JSONLD_CONTEXT_UNKNOWN',
      `unknown @context ${JSON.stringify(String(url).slice(0, 100))}: only bundled contexts are accepted (${[...BUNDLED_CONTEXT_TEXTS.keys()].join(', ')})`,
    );
  }
  return { contextUrl: null, documentUrl: url, document };
}
