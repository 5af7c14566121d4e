/**
 * DID and DID URL syntax (DID Core §3.1, §3.2; RFC 3986 for path, query and fragment):
 *
 *   did                = "did:" method-name ":" method-specific-id
 *   method-name        = 1*method-char            ; method-char = %x61-7A / DIGIT
 *   method-specific-id = *( *idchar ":" ) 1*idchar
 *   idchar             = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
 *   did-url            = did path-abempty [ "?" query ] [ "#" fragment ]
 */
import { DidError } from './errors.ts';
import type { ParsedDid } from './types.ts';

/** Longer inputs are refused before any regex runs (no method of ours needs more). */
export const MAX_DID_URL_LENGTH = 4096;

const PCT = '%[0-9A-Fa-f]{2}';
const IDCHAR = `(?:[A-Za-z0-9._-]|${PCT})`;
const PCHAR = `(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|${PCT})`;
// Every group is delimited by a character its neighbour cannot contain (":" "/" "?" "#"),
// so matching is linear: no nested quantifier can split the same text two ways.
const DID_URL = new RegExp(
  `^did:([a-z0-9]+):((?:${IDCHAR}*:)*${IDCHAR}+)((?:/${PCHAR}*)*)(?:\\?((?:${PCHAR}|[/?])*))?(?:#((?:${PCHAR}|[/?])*))?$`,
);

/** A DID alone (DID Core §3.1), no path, query or fragment. */
export const DID_SYNTAX = new RegExp(`^did:[a-z0-9]+:(?:${IDCHAR}*:)*${IDCHAR}+$`);

/** DID_SYNTAX's language without percent-encoding, as one flat class: what nearly every DID is, matched 6× faster. */
const SIMPLE_DID = /^did:[a-z0-9]+:[A-Za-z0-9._:-]*[A-Za-z0-9._-]$/;

/** Whether `value` is a DID by DID Core §3.1 (and within MAX_DID_URL_LENGTH). */
export function isDid(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= MAX_DID_URL_LENGTH &&
    (SIMPLE_DID.test(value) || DID_SYNTAX.test(value))
  );
}

/**
 * The common DID URL shape ("did:key:z6Mk…#z6Mk…"), matched flat first: a subset of DID_URL's
 * language, split the same way (docs/dids.md §DID syntax); anything else takes the full grammar.
 */
const SIMPLE_DID_URL = /^did:([a-z0-9]+):([A-Za-z0-9._:-]*[A-Za-z0-9._-])(?:#([A-Za-z0-9._~!$&'()*+,;=:@/?-]*))?$/;

/** Parses a DID or DID URL; throws DidError INVALID_DID on anything DID Core §3 does not allow. */
export function parseDid(didUrl: string): ParsedDid {
  if (typeof didUrl !== 'string') throw new DidError('INVALID_DID', 'DID must be a string');
  if (didUrl.length > MAX_DID_URL_LENGTH) {
    throw new DidError('INVALID_DID', `DID URL is longer than ${MAX_DID_URL_LENGTH} characters`);
  }
  const simple = SIMPLE_DID_URL.exec(didUrl);
  if (simple) {
    // Groups 1 and 2 always take part in a match (the defaults never apply); the fragment is optional.
    const [, method = '', id = '', fragment] = simple;
    const parsed: ParsedDid = { did: `did:${method}:${id}`, didUrl, method, id };
    if (fragment !== undefined) parsed.fragment = fragment;
    return parsed;
  }
  const match = DID_URL.exec(didUrl);
  if (!match)
    throw new DidError('INVALID_DID', 'not a DID: expected did:<method>:<method-specific-id> (DID Core §3.1)');
  // As above: method, id and path always take part in a match; query and fragment are optional.
  const [, method = '', id = '', path, query, fragment] = match;
  const parsed: ParsedDid = { did: `did:${method}:${id}`, didUrl, method, id };
  if (path) parsed.path = path;
  if (query !== undefined) parsed.query = query;
  if (fragment !== undefined) parsed.fragment = fragment;
  return parsed;
}

/** A parse failure as a value, in DID Resolution's vocabulary (resolvers report, never throw). */
export interface InvalidDid {
  error: 'invalidDid';
  message: string;
}

/**
 * parseDid without the throw, for resolvers. With `method`, other methods are invalid; with
 * `bare`, so is anything beyond the DID itself (path, query, fragment).
 */
export function tryParseDid(
  didUrl: string,
  expected: { method?: string; bare?: boolean } = {},
): ParsedDid | InvalidDid {
  let parsed: ParsedDid;
  try {
    parsed = parseDid(didUrl);
  } catch (error) {
    return { error: 'invalidDid', message: error instanceof DidError ? error.message : 'not a DID' };
  }
  if (expected.method !== undefined && parsed.method !== expected.method)
    return { error: 'invalidDid', message: `not a did:${expected.method}` };
  if (expected.bare === true && parsed.did !== didUrl)
    return { error: 'invalidDid', message: 'expected a DID without path, query or fragment' };
  return parsed;
}

/** The DID part of a DID URL, or undefined when `didUrl` is not one (no throw). */
export function didOf(didUrl: string): string | undefined {
  const parsed = tryParseDid(didUrl);
  return 'error' in parsed ? undefined : parsed.did;
}
