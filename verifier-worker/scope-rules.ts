/**
 * The scopes a request needs (docs/verifier.md §Required scopes): one list, a function of the
 * request, or a per-path table compiled once and matched segment by segment.
 */
import { parseScopes } from '../wallet/vc/scopes.ts';
import { invalidVerifierOptions } from '../wallet/vc/verify.ts';

/**
 * One line of a per-path scope table. `path` is matched segment by segment against the
 * request's path: a literal segment matches itself (percent-decoded, ASCII case-insensitive),
 * `:name` matches any one segment, and a final `*` matches any rest, including none.
 * `method` (default: any) is case-insensitive; a GET rule also matches HEAD (RFC 9110 §9.3.2).
 */
export interface ScopeRule {
  method?: string | readonly string[];
  path: string;
  scopes: readonly string[];
}

export type ScopeResolver = (request: Request) => readonly string[] | Promise<readonly string[]>;

/**
 * What a request needs: one list for all requests, a function of the request, or a table whose
 * FIRST matching rule applies. A request no rule matches is refused (INSUFFICIENT_SCOPE, 403):
 * end the table with `{ path: '/*', scopes: [] }` to let everything else through.
 */
export type RequiredScopes = readonly string[] | readonly ScopeRule[] | ScopeResolver;

interface CompiledRule {
  methods: ReadonlySet<string> | undefined;
  path: PathPattern;
  scopes: readonly string[];
}

/**
 * A path as the scope table reads it: percent-decoded, lowercased, empty segments dropped
 * (`/API//Files/` and `/api/%66iles` are both `['api', 'files']`), the way permissive routers
 * may read it, so no spelling of a protected path escapes its rule (erring towards matching is
 * the safe side: a rule only adds requirements).
 *
 * Undefined — no rule applies, so the request is refused — when the path does not decode, or
 * when routers disagree on what it names: a decoded segment holding `/` or `\` (`api%2Fadmin`
 * is one segment here but two to a router that decodes first), a `;` (matrix parameters, which
 * servlet containers and some WSGI servers strip: `admin;x=1` is `admin` to them), a control
 * character (`admin%00`: a backend in C reads up to the NUL), a percent-escape left after
 * decoding (`admin%2500`, `api%252Fadmin`: different to a router that decodes twice), or a dot
 * segment left after URL parsing (`%2e%2e`, which a decoding router may resolve).
 */
export function pathSegments(path: string): string[] | undefined {
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw).toLowerCase();
    } catch {
      return undefined;
    }
    if (AMBIGUOUS_SEGMENT.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

// eslint-disable-next-line no-control-regex -- control characters are what this pattern refuses
const AMBIGUOUS_SEGMENT = /[/\\;\u0000-\u001f\u007f]|%[0-9a-f]{2}|^\.\.?$/;

interface PathPattern {
  segments: readonly string[];
  /** A final `*`: any rest, including none. */
  rest: boolean;
}

function compilePath(pattern: string): PathPattern | string {
  if (typeof pattern !== 'string' || !pattern.startsWith('/')) return 'must start with "/"';
  const segments = pathSegments(pattern);
  if (segments === undefined) return 'must be a plain path (valid percent-encoding; no ";", ".", ".." or encoded "/")';
  const rest = segments[segments.length - 1] === '*';
  if (rest) segments.pop();
  if (segments.includes('*')) return 'may only end with "*"';
  return { segments, rest };
}

function pathPatternMatches(pattern: PathPattern, segments: readonly string[]): boolean {
  if (pattern.rest ? segments.length < pattern.segments.length : segments.length !== pattern.segments.length)
    return false;
  return pattern.segments.every((s, i) => s.startsWith(':') || s === segments[i]);
}

/**
 * Whether a `ScopeRule.path` pattern matches a path read by `pathSegments` — the table's own
 * matching, for code that must agree with it (the service worker's choice of guarded paths).
 * An invalid pattern matches nothing.
 */
export function matchesPathPattern(pattern: string, segments: readonly string[]): boolean {
  const compiled = compilePath(pattern);
  return typeof compiled !== 'string' && pathPatternMatches(compiled, segments);
}

function compileRule(rule: ScopeRule, index: number): CompiledRule {
  const where = `requiredScopes[${index}]`;
  const path = compilePath(rule?.path);
  if (typeof path === 'string') invalidVerifierOptions(`${where}.path ${path}`);
  const methodList =
    rule.method === undefined ? undefined : typeof rule.method === 'string' ? [rule.method] : rule.method;
  if (methodList !== undefined && !isMethodList(methodList))
    invalidVerifierOptions(`${where}.method must be an HTTP method name or a list of them`);
  const methods = methodList === undefined ? undefined : new Set(methodList.map((m) => m.toUpperCase()));
  if (methods?.has('GET')) methods.add('HEAD');
  return { methods, path, scopes: checkedScopes(rule.scopes, `${where}.scopes`) };
}

const isMethodList = (value: unknown): value is readonly string[] =>
  Array.isArray(value) && value.every((m) => typeof m === 'string' && /^[A-Za-z]+$/.test(m));

function checkedScopes(scopes: unknown, where: string): string[] {
  try {
    return parseScopes(scopes);
  } catch (error) {
    return invalidVerifierOptions(`${where}: ${error instanceof Error ? error.message : 'invalid scopes'}`);
  }
}

function ruleMatches(rule: CompiledRule, method: string, segments: readonly string[]): boolean {
  return (rule.methods === undefined || rule.methods.has(method)) && pathPatternMatches(rule.path, segments);
}

export type ScopePlan =
  | { kind: 'fixed'; scopes: readonly string[] }
  | { kind: 'table'; rules: readonly CompiledRule[] }
  | { kind: 'function'; resolve: ScopeResolver };

export function planScopes(required: RequiredScopes | undefined): ScopePlan {
  if (required === undefined) return { kind: 'fixed', scopes: [] };
  if (typeof required === 'function') return { kind: 'function', resolve: required };
  if (!Array.isArray(required))
    return invalidVerifierOptions('requiredScopes must be a list of scopes, a list of rules or a function');
  if (required.every((s) => typeof s === 'string'))
    return { kind: 'fixed', scopes: checkedScopes(required, 'requiredScopes') };
  return { kind: 'table', rules: (required as readonly ScopeRule[]).map(compileRule) };
}

/**
 * The scopes `request` needs, or undefined when a table has no rule for it. A table must allow
 * every method the request may run as, and then needs all their scopes.
 */
export async function scopesFor(
  plan: ScopePlan,
  request: Request,
  url: URL,
  methods: readonly string[],
): Promise<readonly string[] | undefined> {
  if (plan.kind === 'fixed') return plan.scopes;
  if (plan.kind === 'function') return checkedScopes(await plan.resolve(request), 'requiredScopes(request)');
  const segments = pathSegments(url.pathname);
  if (segments === undefined) return undefined;
  const needed = new Set<string>();
  for (const method of methods) {
    const rule = plan.rules.find((candidate) => ruleMatches(candidate, method, segments));
    if (rule === undefined) return undefined;
    for (const scope of rule.scopes) needed.add(scope);
  }
  return [...needed];
}
