/**
 * Scope semantics: what a scope string means and when one set of scopes is bounded by another.
 * Every authority check in Mandate (delegation chains, grants, the verifier's decision) reduces
 * to the four relations here, so they are small, total and fail closed.
 *
 * Grammar (the only accepted spelling; anything else is INVALID_SCOPE):
 *
 *     scope   = segment *( ":" segment )
 *     segment = 1*( %x61-7A / DIGIT / "." / "_" / "-" )      ; [a-z0-9._-]+
 *
 * Coverage is a prefix on segments, never characters; `*` is not a wildcard; no case folding or
 * normalisation; every function throws on the first invalid scope. Each closes a known hole:
 * docs/scopes.md §Why segment-wise, and why no wildcard.
 */
import { MandateError } from '../crypto/errors.ts';

export type ScopeErrorCode = 'INVALID_SCOPE';

export class ScopeError extends MandateError<ScopeErrorCode> {
  override name = 'ScopeError';
}

/** Longest accepted scope, in characters: bounds the work a hostile credential can cause. */
export const MAX_SCOPE_LENGTH = 256;
/** Most scopes accepted in one list by `parseScopes` (the relations are quadratic in it). */
export const MAX_SCOPES = 256;

// No `i`, `u` or `m` flag: ASCII only, and `$` matches only at the very end (no trailing "\n").
const SCOPE_RE = /^[a-z0-9._-]+(?::[a-z0-9._-]+)*$/;

/** Throws INVALID_SCOPE unless `scope` is a string in the scope grammar. */
export function assertScope(scope: unknown): asserts scope is string {
  if (typeof scope !== 'string') throw new ScopeError('INVALID_SCOPE', 'a scope must be a string');
  if (scope.length > MAX_SCOPE_LENGTH) {
    throw new ScopeError('INVALID_SCOPE', `a scope must be at most ${MAX_SCOPE_LENGTH} characters`);
  }
  if (!SCOPE_RE.test(scope)) {
    // JSON.stringify shows invisible and look-alike characters as they really are.
    throw new ScopeError(
      'INVALID_SCOPE',
      `invalid scope ${JSON.stringify(scope)}: expected segment(:segment)* with segments [a-z0-9._-]+`,
    );
  }
}

/** The segments of a valid scope (`files:read` → `['files', 'read']`); INVALID_SCOPE otherwise. */
export function parseScope(scope: unknown): string[] {
  assertScope(scope);
  return scope.split(':');
}

/**
 * Validates a scope list taken from a document (an array of at most MAX_SCOPES valid scopes)
 * and returns a copy, so later changes to the document cannot alter what was checked.
 */
export function parseScopes(scopes: unknown): string[] {
  if (!Array.isArray(scopes)) throw new ScopeError('INVALID_SCOPE', 'scopes must be an array of strings');
  if (scopes.length > MAX_SCOPES) throw new ScopeError('INVALID_SCOPE', `at most ${MAX_SCOPES} scopes are accepted`);
  const copy: string[] = [];
  for (const scope of scopes as unknown[]) {
    assertScope(scope);
    copy.push(scope);
  }
  return copy;
}

function assertScopes(scopes: readonly string[]): void {
  if (!Array.isArray(scopes)) throw new ScopeError('INVALID_SCOPE', 'scopes must be an array of strings');
  for (const scope of scopes) assertScope(scope);
}

// Segment-wise prefix on already-validated scopes. Segments never contain ":", so p's segments
// are a prefix of c's exactly when c is p, or starts with p followed by ":" — no splitting.
function coversValid(parent: string, child: string): boolean {
  if (child.length === parent.length) return child === parent;
  return child.length > parent.length && child.charCodeAt(parent.length) === 58 /* ':' */ && child.startsWith(parent);
}

/**
 * True iff `parent`'s segments are a prefix of `child`'s: `files` covers `files`, `files:read`
 * and `files:read:public`, but never `filesystem:read` nor `file`. A partial order (reflexive,
 * antisymmetric, transitive).
 */
export function covers(parent: string, child: string): boolean {
  assertScope(parent);
  assertScope(child);
  return coversValid(parent, child);
}

function coveredBy(scope: string, set: readonly string[]): boolean {
  return set.some((candidate) => coversValid(candidate, scope));
}

/** True iff every scope of `inner` is covered by some scope of `outer` (the empty set is within anything). */
export function within(inner: readonly string[], outer: readonly string[]): boolean {
  assertScopes(inner);
  assertScopes(outer);
  return inner.every((scope) => coveredBy(scope, outer));
}

/** The scopes of `inner` that no scope of `outer` covers, deduplicated, in `inner`'s order: what an error names. */
export function uncovered(inner: readonly string[], outer: readonly string[]): string[] {
  assertScopes(inner);
  assertScopes(outer);
  return [...new Set(inner)].filter((scope) => !coveredBy(scope, outer));
}

// Deduplicates, drops every scope covered by another one, and sorts (code-unit order) so equal
// authority always has one spelling.
function minimal(scopes: readonly string[]): string[] {
  const unique = [...new Set(scopes)];
  return unique.filter((scope) => !unique.some((other) => other !== scope && coversValid(other, scope))).sort();
}

/**
 * The same authority as `scopes` in its one minimal spelling: deduplicated, without scopes
 * covered by another (`['files', 'files:read']` → `['files']`), sorted.
 */
export function normalizeScopes(scopes: readonly string[]): string[] {
  assertScopes(scopes);
  return minimal(scopes);
}

/**
 * What a holder of `a` can exercise when additionally bounded by `b`: for every pair where one
 * covers the other, the more specific one; then normalised. It is the greatest lower bound of
 * the two sets: a scope is covered by the result iff it is covered by both `a` and `b`, so the
 * result is within `a` and within `b`. `narrow(['files'], ['files:read', 'mail'])` → `['files:read']`.
 */
export function narrow(a: readonly string[], b: readonly string[]): string[] {
  assertScopes(a);
  assertScopes(b);
  const meet: string[] = [];
  for (const x of a) {
    for (const y of b) {
      if (coversValid(x, y)) meet.push(y);
      else if (coversValid(y, x)) meet.push(x);
      // Otherwise neither is a prefix of the other, so no scope lies under both.
    }
  }
  return minimal(meet);
}
