/**
 * What a JSON-LD processor's refusal means, as one of the rules VC DM 2.0 and VC Data Integrity
 * ask of a document (VC DM 2.0 §4.3, §4.5, §5.1; VC-DI §4.4: no data silently dropped), named by
 * a stable code and said in words. jsonld.js (9) throws a `jsonld.ValidationError` carrying the
 * safe-mode event (lib/events.js), a `jsonld.SyntaxError` with a `details.code`, or a
 * `jsonld.InvalidUrl` whose `details.cause` is the document loader's own error.
 *
 * One reading for both users: eddsa-rdfc-2022 (PROOF_MALFORMED with the words) and the
 * VC-API's JSON-LD rules (wallet/jsonld/rules.ts, the code). Messages quote at most 64
 * characters of the input.
 */
import { isMandateError } from './errors.ts';

export type JsonLdRule =
  | 'JSONLD_CONTEXT_UNKNOWN'
  | 'JSONLD_UNDEFINED_TERM'
  | 'JSONLD_PROTECTED_TERM_REDEFINED'
  | 'JSONLD_RELATIVE_IRI'
  | 'JSONLD_INVALID';

export interface JsonLdRefusal {
  rule: JsonLdRule;
  message: string;
}

/** A value from the input or from jsonld.js for an error message, bounded in length. */
function quote(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/** JSON-LD safe-mode event codes (jsonld.js 9 lib/events.js): the rule, in words. */
const SAFE_MODE_RULES: Readonly<Record<string, [JsonLdRule, string]>> = {
  'invalid property': ['JSONLD_UNDEFINED_TERM', 'a property is not defined by the @context, so JSON-LD would drop it'],
  'relative @type reference': ['JSONLD_UNDEFINED_TERM', 'a type is not defined by the @context (a relative IRI)'],
  'relative @id reference': ['JSONLD_RELATIVE_IRI', 'an id is a relative IRI'],
  'relative @vocab reference': ['JSONLD_RELATIVE_IRI', 'an @vocab is a relative IRI'],
  'relative subject reference': ['JSONLD_RELATIVE_IRI', 'a node id is a relative IRI'],
  'relative predicate reference': ['JSONLD_RELATIVE_IRI', 'a property IRI is relative'],
  'relative object reference': ['JSONLD_RELATIVE_IRI', 'an IRI value is relative'],
  'relative graph reference': ['JSONLD_RELATIVE_IRI', 'a graph name is a relative IRI'],
  'empty object': ['JSONLD_INVALID', 'an empty object would be dropped'],
  'free-floating scalar': ['JSONLD_INVALID', 'a value outside any node would be dropped'],
  'object with only @id': ['JSONLD_INVALID', 'a node with only an id would be dropped'],
  'object with only @language': ['JSONLD_INVALID', 'a value with only a @language would be dropped'],
  'object with only @list': ['JSONLD_INVALID', 'a list object would be dropped'],
  'object with only @value': ['JSONLD_INVALID', 'a value object would be dropped'],
  'null @id value': ['JSONLD_INVALID', 'an @id is null'],
  'null @value value': ['JSONLD_INVALID', 'a @value is null'],
  'invalid @language value': ['JSONLD_INVALID', 'a @language is not a language tag'],
  'reserved @id value': ['JSONLD_INVALID', 'an @id has the form of a keyword'],
  'reserved @reverse value': ['JSONLD_INVALID', 'an @reverse has the form of a keyword'],
  'reserved term': ['JSONLD_INVALID', 'a term has the form of a keyword'],
  'blank node predicate': ['JSONLD_INVALID', 'a property is a blank node'],
  'rdfDirection not set': ['JSONLD_INVALID', 'an @direction cannot be expressed in RDF'],
};

/** jsonld.js SyntaxError codes that break a rule of their own (the rest are JSONLD_INVALID). */
const SYNTAX_RULES: Readonly<Record<string, JsonLdRule>> = {
  'protected term redefinition': 'JSONLD_PROTECTED_TERM_REDEFINED',
  'invalid IRI mapping': 'JSONLD_RELATIVE_IRI',
  'invalid vocab mapping': 'JSONLD_RELATIVE_IRI',
  'loading remote context failed': 'JSONLD_CONTEXT_UNKNOWN',
  'loading document failed': 'JSONLD_CONTEXT_UNKNOWN',
};

// Where a safe-mode event names the offending part of the input (jsonld.js 9 event details).
const EVENT_DETAIL_KEYS = ['property', 'type', 'id', 'vocab', 'subject', 'predicate', 'object', 'graph'] as const;

interface JsonLdErrorDetails {
  code?: unknown;
  url?: unknown;
  term?: unknown;
  cause?: unknown;
  event?: { code?: unknown; details?: Record<string, unknown> };
}

function safeModeRefusal(event: JsonLdErrorDetails['event']): JsonLdRefusal {
  const code = String(event?.code);
  const [rule, words] = SAFE_MODE_RULES[code] ?? ['JSONLD_INVALID', `the JSON-LD rule ${quote(code)} failed`];
  const details = event?.details ?? {};
  const named = EVENT_DETAIL_KEYS.map((key) => details[key]).find((value) => typeof value === 'string');
  return { rule, message: `JSON-LD safe mode: ${words}${named === undefined ? '' : ` (${quote(named)})`}` };
}

/** The rule `error` (thrown by jsonld.js) enforces; JSONLD_INVALID for anything else. */
export function jsonLdRefusal(error: unknown): JsonLdRefusal {
  if (!(error instanceof Error)) return { rule: 'JSONLD_INVALID', message: 'JSON-LD processing failed' };
  const details = ((error as { details?: unknown }).details ?? {}) as JsonLdErrorDetails;
  if (error.name === 'jsonld.ValidationError') return safeModeRefusal(details.event);
  if (error.name === 'jsonld.InvalidUrl') {
    // The loader's own error is the cause (JSONLD_CONTEXT_UNKNOWN for the bundled loader).
    const why = isMandateError(details.cause) ? ` (${details.cause.code})` : '';
    return {
      rule: 'JSONLD_CONTEXT_UNKNOWN',
      message: `JSON-LD: the @context ${quote(details.url)} is not one the document loader serves${why}`,
    };
  }
  if (error.name === 'jsonld.ContextUrlError')
    return { rule: 'JSONLD_INVALID', message: 'JSON-LD: too many or cyclic @context URLs' };
  if (error.name.startsWith('jsonld.')) {
    const code = typeof details.code === 'string' ? details.code : undefined;
    const term = typeof details.term === 'string' ? ` ${quote(details.term)}` : '';
    return {
      rule: (code === undefined ? undefined : SYNTAX_RULES[code]) ?? 'JSONLD_INVALID',
      message: `JSON-LD: ${quote(code ?? error.name)}${term}`,
    };
  }
  return { rule: 'JSONLD_INVALID', message: `JSON-LD processing failed (${quote(error.name)})` };
}
