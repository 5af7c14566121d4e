/**
 * `verifyRequest`: the framework-neutral core of `mandate/verifier`. It takes a Web-standard
 * `Request`, reads the agent's presentation from its `Authorization: VP …` header and decides,
 * in this process and without calling the issuer, whether the request may proceed
 * (docs/verifier.md). The Hono middleware, the Node `http` adapter and the service worker are
 * thin shells around it, so it is isomorphic: Web APIs only, no `node:` imports.
 *
 * Wire format (docs/verifier.md §Wire format):
 * - `Authorization: VP <token>`, token = base64url without padding (RFC 4648 §5) of the UTF-8
 *   JSON of a VerifiablePresentation. The scheme is case-insensitive (RFC 9110 §11.1).
 * - Challenges come from this verifier's nonce endpoint (`GET /.well-known/mandate/challenge`,
 *   single use), from the request's `X-Mandate-Challenge` header, or are not checked at all;
 *   the last two lean on the replay cache and must be chosen explicitly.
 * - Refusals are `{valid: false, reason, message}` with one of the verifier's 22 reason codes,
 *   status 400, 401 (with `WWW-Authenticate: VP realm=…`) or 403.
 *
 * The presentation is a bearer secret for its few minutes of life: it is never echoed into a
 * message, a body or a header of any response.
 */
import { bytesToBase64url } from '../wallet/crypto/aead.ts';
import { randomBytes } from '../wallet/crypto/bytes.ts';
import type { JsonValue } from '../wallet/crypto/jcs.ts';
import { LruCache } from '../wallet/crypto/lru.ts';
import { createCachedResolver } from '../wallet/did/cache.ts';
import { resolveDidKey } from '../wallet/did/key.ts';
import { createResolver } from '../wallet/did/registry.ts';
import type { Resolvable } from '../wallet/did/types.ts';
import { createKeyResolver } from '../wallet/did/verification-method.ts';
import { createWebResolver } from '../wallet/did/web.ts';
import type { FetchLike } from '../wallet/net/http.ts';
import type { UrlPolicy } from '../wallet/net/url-policy.ts';
import { createStatusListClient, type StatusListClient } from '../wallet/status/client.ts';
import { createVerifiedCredentialCache, type VerifiedCredentialCache } from '../wallet/vc/credential-cache.ts';
import type { ReasonCode } from '../wallet/vc/reasons.ts';
import { createReplayCache, type ReplayCache } from '../wallet/vc/replay-cache.ts';
import { parseScopes } from '../wallet/vc/scopes.ts';
import {
  DEFAULT_MAX_PRESENTATION_BYTES,
  PRESENTATION_SCHEME,
  PresentationHeaderError,
  decodePresentationHeader,
  type PresentationHeaderErrorCode,
} from '../wallet/vc/transport.ts';
import {
  assertVerifyPresentationOptions,
  invalidVerifierOptions,
  isDidList,
  verifyPresentation,
  type ChainLink,
  type CheckName,
  type CheckOutcome,
  type SourceAge,
  type VerifyPresentationOptions,
} from '../wallet/vc/verify.ts';
import { assertKnownOptionKeys } from './option-keys.ts';

// ---------------------------------------------------------------------------------------------
// Wire constants (the presentation's own transport lives in wallet/vc/transport.ts)
// ---------------------------------------------------------------------------------------------

export {
  DEFAULT_MAX_PRESENTATION_BYTES,
  PRESENTATION_SCHEME,
  PresentationHeaderError,
  decodePresentationHeader,
  encodePresentationHeader,
  type PresentationHeaderErrorCode,
} from '../wallet/vc/transport.ts';

/** Where the verifier hands out nonces, relative to its origin. */
export const DEFAULT_CHALLENGE_PATH = '/.well-known/mandate/challenge';
/** The request header carrying the challenge in `challenge: 'request'` mode. */
export const CHALLENGE_HEADER = 'X-Mandate-Challenge';
/** Headers a verified request is forwarded with; any incoming `X-Mandate-*` header is dropped first. */
export const CLAIM_HEADERS = /* @__PURE__ */ Object.freeze({
  agentDid: 'X-Mandate-Agent-Did',
  /** The effective scopes, space-separated (a scope never contains a space: docs/scopes.md). */
  scopes: 'X-Mandate-Scopes',
  vpId: 'X-Mandate-Vp-Id',
});
/** How long a nonce from the challenge endpoint may be answered (default 5 minutes). */
export const DEFAULT_CHALLENGE_TTL_MS = 5 * 60_000;
/** Longest challenge looked up in a store or taken from a header. */
const MAX_CHALLENGE_LENGTH = 512;

/**
 * Whether a header name is one of Mandate's `X-Mandate-*` names, however spelled. CGI-style
 * gateways (PHP, Django, Rack: `HTTP_X_MANDATE_AGENT_DID`) read `_` as `-`, so a client's
 * `X_Mandate_Agent_Did` could reach the application as the claim header: it is dropped too.
 */
export function isMandateHeaderName(name: string): boolean {
  return name.length > 10 && name.slice(0, 10).toLowerCase().replaceAll('_', '-') === 'x-mandate-';
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

// VerifierOptionsError (INVALID_VERIFIER_OPTIONS) is the wallet verifier's: one error for a bad
// configuration, whether verifyPresentation or the middleware finds it (at setup).
export { VerifierOptionsError } from '../wallet/vc/reasons.ts';
export type VerifierOptionsErrorCode = 'INVALID_VERIFIER_OPTIONS';

// ---------------------------------------------------------------------------------------------
// Challenges
// ---------------------------------------------------------------------------------------------

/**
 * How the presentation's challenge is checked:
 * - `'endpoint'` (default): it must be a nonce this verifier issued (`issueChallenge` / the
 *   challenge endpoint), not expired, and is consumed by the first request that carries it.
 * - `'request'`: it must equal the request's `X-Mandate-Challenge` header; only the replay cache
 *   makes it single-use, so a `replayCache` must be given.
 * - `'none'`: any challenge; the replay cache (required) remembers each vpId and challenge.
 */
export type ChallengeMode = 'endpoint' | 'request' | 'none';

export interface IssuedChallenge {
  /** 128 random bits, base64url. */
  challenge: string;
  /** ms since the epoch. */
  expiresAt: number;
}

/**
 * Where issued nonces live until answered or expired. The in-memory default suits one process;
 * a fleet behind a load balancer shares one (e.g. backed by Redis `SET … NX PX` + `GETDEL`).
 */
export interface ChallengeStore {
  issue(): IssuedChallenge | Promise<IssuedChallenge>;
  /** True exactly once for a live issued challenge; false when unknown, used or expired. */
  consume(challenge: string): boolean | Promise<boolean>;
}

export interface ChallengeStoreOptions {
  /** Lifetime of a nonce (default 5 minutes). */
  ttlMs?: number;
  /** Most outstanding nonces (default 10,000); the oldest are forgotten first, so rate-limit the endpoint. */
  max?: number;
  now?: () => number;
}

/** An in-memory, bounded store of single-use nonces on the wallet's LruCache. */
export function createChallengeStore(options: ChallengeStoreOptions = {}): ChallengeStore {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_CHALLENGE_TTL_MS;
  const max = options.max ?? 10_000;
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || !Number.isInteger(max) || max < 1)
    invalidVerifierOptions('challenge ttlMs and max must be positive integers');
  const issued = new LruCache<string, true>({ max, now });
  return Object.freeze({
    issue() {
      const challenge = bytesToBase64url(randomBytes(16));
      issued.set(challenge, true, ttlMs);
      return { challenge, expiresAt: now() + ttlMs };
    },
    consume(challenge: string) {
      // get() drops expired entries; delete() makes the answer single-use.
      if (issued.get(challenge) !== true) return false;
      issued.delete(challenge);
      return true;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Required scopes
// ---------------------------------------------------------------------------------------------

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
  if (
    methodList !== undefined &&
    (!Array.isArray(methodList) || methodList.some((m) => typeof m !== 'string' || !/^[A-Za-z]+$/.test(m)))
  ) {
    invalidVerifierOptions(`${where}.method must be an HTTP method name or a list of them`);
  }
  const methods = methodList === undefined ? undefined : new Set(methodList.map((m) => m.toUpperCase()));
  if (methods?.has('GET')) methods.add('HEAD');
  return { methods, path, scopes: checkedScopes(rule.scopes, `${where}.scopes`) };
}

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

type ScopePlan =
  | { kind: 'fixed'; scopes: readonly string[] }
  | { kind: 'table'; rules: readonly CompiledRule[] }
  | { kind: 'function'; resolve: ScopeResolver };

function planScopes(required: RequiredScopes | undefined): ScopePlan {
  if (required === undefined) return { kind: 'fixed', scopes: [] };
  if (typeof required === 'function') return { kind: 'function', resolve: required };
  if (!Array.isArray(required))
    return invalidVerifierOptions('requiredScopes must be a list of scopes, a list of rules or a function');
  if (required.every((s) => typeof s === 'string'))
    return { kind: 'fixed', scopes: checkedScopes(required, 'requiredScopes') };
  return { kind: 'table', rules: (required as readonly ScopeRule[]).map(compileRule) };
}

/** Where method-override conventions carry the method an application will run instead. */
const METHOD_OVERRIDE_HEADERS = ['x-http-method-override', 'x-http-method', 'x-method-override'];

/**
 * A query key as PHP reads it: leading spaces dropped, then ' ', '.' and '[' turned into '_'
 * (so `.method` and ` method` are `_method`), compared without case; `_method[]` and
 * `_method[0]` (arrays) count too. Reading more keys as overrides only ever asks for more scopes.
 */
const isMethodOverrideKey = (key: string): boolean =>
  /^_method(_|$)/.test(key.trimStart().toLowerCase().replace(/[ .[]/g, '_'));

/**
 * The methods `request` may run as: its own, plus any a method-override convention names — the
 * X-HTTP-Method-Override / X-HTTP-Method / X-Method-Override headers (Express's
 * method-override, ASP.NET, Google APIs), also spelled with `_` (CGI gateways read
 * `X_HTTP_Method_Override` as the same header), and a `_method` query parameter (Laravel,
 * Symfony), also spelled as PHP would read it. Judged by its own method only, a POST allowed
 * with `files:write` could DELETE. Undefined when an override is not a method name.
 */
export function requestMethods(request: Request, url = new URL(request.url)): string[] | undefined {
  const named = [request.method];
  for (const [key, value] of url.searchParams) if (isMethodOverrideKey(key)) named.push(value);
  request.headers.forEach((value, name) => {
    if (METHOD_OVERRIDE_HEADERS.includes(name.replaceAll('_', '-'))) named.push(...value.split(','));
  });
  const methods = new Set<string>();
  for (const name of named) {
    const method = name.trim().toUpperCase();
    if (!/^[A-Z]+$/.test(method)) return undefined;
    methods.add(method);
  }
  return [...methods];
}

/**
 * The scopes `request` needs, or undefined when a table has no rule for it. A table must allow
 * every method the request may run as, and then needs all their scopes.
 */
async function scopesFor(
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

// ---------------------------------------------------------------------------------------------
// Options and their defaults
// ---------------------------------------------------------------------------------------------

export interface VerifyRequestOptions {
  /** DIDs whose AgentCredentials are accepted as chain roots (your issuer's DID). */
  trustedIssuers: readonly string[];
  /** DIDs of service providers whose DelegationGrantCredentials are accepted. */
  trustedGrantIssuers?: readonly string[];
  /** This service's name: every presentation's proof `domain` must equal it. */
  target: string;
  requiredScopes?: RequiredScopes;
  /** Default `'endpoint'`. */
  challenge?: ChallengeMode;
  /** The nonce store of `'endpoint'` mode (default: in memory, 5-minute nonces). */
  challenges?: ChallengeStore;
  /** Path of the challenge endpoint (default `/.well-known/mandate/challenge`). */
  challengePath?: string;
  /** Default: a cached did:key + did:web resolver (wallet/did). */
  resolver?: Resolvable;
  /** Default: a status list client checking lists with `resolver`'s keys. */
  statusLists?: StatusListClient;
  /** Default in `'endpoint'` mode: an in-memory cache; required in the other modes. */
  replayCache?: ReplayCache;
  /** Default: an in-memory verified-credential cache (10 minutes). */
  credentialCache?: VerifiedCredentialCache;
  /** Network policy of the default did:web resolver and status list client (https only by default). */
  urlPolicy?: UrlPolicy;
  /** fetch for the default did:web resolver and status list client. */
  fetch?: FetchLike;
  /** Clock, ms since the epoch (default Date.now). */
  now?: () => number;
  /** Tolerance for clocks, both ways (default 60 s). */
  clockSkewMs?: number;
  /** Most credentials in a chain (default 8). */
  maxChainLength?: number;
  /** Largest presentation, in bytes of JSON (default 64 KiB). */
  maxPresentationBytes?: number;
  /** Accept self-issued roots (issuer = subject). Development only. */
  allowSelfSigned?: boolean;
  /** Longest presentation lifetime (`expires` − `created`) accepted (default 1 hour). */
  maxPresentationLifetimeMs?: number;
  /** Refuse root credentials and grants without a revocation or suspension entry (default false). */
  requireCredentialStatus?: boolean;
}

/** What the handler behind the verifier learns about the agent. */
export interface AgentClaims {
  agentDid: string;
  /** What the agent may do here: its credential's scopes narrowed by any grants. */
  effectiveScopes: string[];
  /** The leaf credential's scopes. */
  privilegeScopes: string[];
  vpId: string;
  /** The credentials relied on, leaf first (no proofs, no secrets). */
  chain: ChainLink[];
}

export type DenialStatus = 400 | 401 | 403;

export interface DenialBody {
  valid: false;
  reason: ReasonCode;
  message: string;
}

export interface RequestAllowed {
  allowed: true;
  claims: AgentClaims;
  checks: CheckOutcome[];
  /** Age of every DID document and status list relied on. */
  sources: { dids: SourceAge[]; statusLists: SourceAge[] };
}

export interface RequestDenied {
  allowed: false;
  status: DenialStatus;
  body: DenialBody;
  /** Response headers: `WWW-Authenticate` on 401. */
  headers: Record<string, string>;
  failedCheck: CheckName;
  checks: CheckOutcome[];
}

export type RequestVerdict = RequestAllowed | RequestDenied;

interface VerifierState {
  target: string;
  mode: ChallengeMode;
  challengePath: string;
  challenges: ChallengeStore | undefined;
  scopes: ScopePlan;
  maxBytes: number;
  now: () => number;
  /** What every verifyPresentation call shares, copied at setup so later edits of the options change nothing. */
  verification: Omit<VerifyPresentationOptions, 'expectedChallenge' | 'requiredScopes' | 'now'>;
}

// Defaults hold state (caches, nonces), so they are built once per options object: keep one
// options object for the life of the server, as the middleware factories do.
const states = new WeakMap<VerifyRequestOptions, VerifierState>();

/**
 * Validates `options` (unknown or misplaced keys included: option-keys.ts) and builds their
 * defaults, once per options object. Called by every entry
 * point; the middleware factories call it at setup so a bad configuration fails at startup.
 */
export function prepareVerifier(options: VerifyRequestOptions, extraKeys: readonly string[] = []): void {
  stateFor(options, extraKeys);
}

/** `extraKeys`: options of the entry point's own (forwardHeaders, baseUrl), known beside the verifier's. */
function stateFor(options: VerifyRequestOptions, extraKeys: readonly string[] = []): VerifierState {
  const known = states.get(options);
  if (known) return known;
  if (typeof options !== 'object' || options === null) invalidVerifierOptions('options must be an object');
  assertKnownOptionKeys(options, extraKeys);
  const { target } = options;
  // The target is quoted in WWW-Authenticate: no quotes, backslashes or controls (RFC 9110 §5.6.4).
  if (
    typeof target !== 'string' ||
    target.length === 0 ||
    target.length > 256 ||
    /["\\\u0000-\u001f\u007f-\uffff]/.test(target)
  ) {
    invalidVerifierOptions('target must be this service\'s name: 1-256 printable ASCII characters without " or \\');
  }
  if (!isDidList(options.trustedIssuers)) invalidVerifierOptions('trustedIssuers must be a list of DIDs');
  if (options.trustedGrantIssuers !== undefined && !isDidList(options.trustedGrantIssuers))
    invalidVerifierOptions('trustedGrantIssuers must be a list of DIDs');
  const mode = options.challenge ?? 'endpoint';
  if (mode !== 'endpoint' && mode !== 'request' && mode !== 'none')
    invalidVerifierOptions("challenge must be 'endpoint', 'request' or 'none'");
  if (mode !== 'endpoint' && options.replayCache === undefined) {
    // Without issued nonces, the replay cache is the only thing keeping a presentation single-use;
    // a default one could silently be recreated per call. It must be the caller's, and shared.
    invalidVerifierOptions(`challenge '${mode}' needs a replayCache (createReplayCache()) shared by every request`);
  }
  const challengePath = options.challengePath ?? DEFAULT_CHALLENGE_PATH;
  // Also quoted in WWW-Authenticate when the request URL is relative: no quotes or backslashes.
  if (typeof challengePath !== 'string' || !/^\/[\x21\x23-\x5b\x5d-\x7e]*$/.test(challengePath))
    invalidVerifierOptions('challengePath must be an absolute path');
  const maxBytes = options.maxPresentationBytes ?? DEFAULT_MAX_PRESENTATION_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1)
    invalidVerifierOptions('maxPresentationBytes must be a positive integer');
  const now = options.now ?? Date.now;
  const network = { ...options.urlPolicy, ...(options.fetch ? { fetch: options.fetch } : {}) };
  const resolver =
    options.resolver ??
    createCachedResolver(createResolver({ methods: { key: resolveDidKey, web: createWebResolver(network) } }), { now });
  const state: VerifierState = {
    target,
    mode,
    challengePath,
    challenges: mode === 'endpoint' ? (options.challenges ?? createChallengeStore({ now })) : undefined,
    scopes: planScopes(options.requiredScopes),
    maxBytes,
    now,
    verification: {
      trustedIssuers: [...options.trustedIssuers],
      trustedGrantIssuers: [...(options.trustedGrantIssuers ?? [])],
      expectedDomain: target,
      resolver,
      statusLists: options.statusLists,
      replayCache: options.replayCache ?? createReplayCache({ now }),
      credentialCache: options.credentialCache ?? createVerifiedCredentialCache({ now }),
      ...(options.clockSkewMs === undefined ? {} : { clockSkewMs: options.clockSkewMs }),
      ...(options.maxChainLength === undefined ? {} : { maxChainLength: options.maxChainLength }),
      maxPresentationBytes: maxBytes,
      allowSelfSigned: options.allowSelfSigned === true,
      ...(options.maxPresentationLifetimeMs === undefined
        ? {}
        : { maxPresentationLifetimeMs: options.maxPresentationLifetimeMs }),
      requireCredentialStatus: options.requireCredentialStatus === true,
    },
  };
  // The options verifyPresentation itself will get, checked now: a bad skew, chain length or
  // helper fails at setup, not as a 500 on every request.
  assertVerifyPresentationOptions(state.verification);
  // Made after that check, since it is given the (now valid) clock skew.
  state.verification.statusLists ??= createStatusListClient({
    resolveKey: createKeyResolver(resolver, { now }),
    ...network,
    now,
    ...(options.clockSkewMs === undefined ? {} : { clockSkewMs: options.clockSkewMs }),
  });
  states.set(options, state);
  return state;
}

// ---------------------------------------------------------------------------------------------
// Verdicts
// ---------------------------------------------------------------------------------------------

/**
 * The HTTP status of a refusal (docs/verifier.md §Status codes): MALFORMED is 400; a failure of
 * the presentation itself (its proof, freshness, challenge, target, holder key; replay) is 401,
 * "authenticate again"; a failure of the authority it carries (credentials, issuers' DIDs,
 * chain, trust, scopes, status) is 403, "a new presentation of the same authority won't help".
 */
export function denialStatus(reason: ReasonCode, failedCheck: CheckName): DenialStatus {
  if (reason === 'MALFORMED') return 400;
  return failedCheck === 'presentation' || failedCheck === 'replay' ? 401 : 403;
}

/** `WWW-Authenticate` for a 401 (RFC 9110 §11.6.1), telling the client how to get a challenge. */
function authenticateHeader(state: VerifierState, request: Request, reason: ReasonCode): string {
  const params = [`realm="${state.target}"`];
  if (state.mode === 'endpoint') {
    // The quoted string must stay one (RFC 9110 §5.6.4): URL.href keeps '"' and '\' in a host
    // taken from the client's Host header, so those are percent-encoded.
    let endpoint = state.challengePath;
    try {
      endpoint = new URL(state.challengePath, request.url).href.replace(/["\\]/g, encodeURIComponent);
    } catch {
      // A relative request URL (some test harnesses): the path alone still tells the client.
    }
    params.push(`challenge-endpoint="${endpoint}"`);
  } else if (state.mode === 'request') {
    params.push(`challenge-header="${CHALLENGE_HEADER}"`);
  }
  params.push(`error="${reason}"`);
  return `${PRESENTATION_SCHEME} ${params.join(', ')}`;
}

function deny(
  state: VerifierState,
  request: Request,
  reason: ReasonCode,
  message: string,
  failedCheck: CheckName,
  status: DenialStatus = denialStatus(reason, failedCheck),
  checks: CheckOutcome[] = [{ check: failedCheck, ok: false, reason, message }],
): RequestDenied {
  return {
    allowed: false,
    status,
    body: { valid: false, reason, message },
    headers: status === 401 ? { 'WWW-Authenticate': authenticateHeader(state, request, reason) } : {},
    failedCheck,
    checks,
  };
}

const HEADER_STATUS: Record<PresentationHeaderErrorCode, DenialStatus> = {
  AUTHORIZATION_MISSING: 401,
  AUTHORIZATION_SCHEME: 401,
  AUTHORIZATION_ENCODING: 401,
  PRESENTATION_TOO_LARGE: 400,
  PRESENTATION_NOT_JSON: 400,
};

function proofChallenge(presentation: JsonValue): unknown {
  if (typeof presentation !== 'object' || presentation === null || Array.isArray(presentation)) return undefined;
  const proof = presentation.proof; // one object, or the presentation is refused as MALFORMED
  return typeof proof === 'object' && proof !== null && !Array.isArray(proof) ? proof.challenge : undefined;
}

/** The challenge the presentation must carry, or a refusal. Consumes an endpoint nonce. */
async function expectedChallenge(
  state: VerifierState,
  request: Request,
  presentation: JsonValue,
): Promise<string | undefined | RequestDenied> {
  if (state.mode === 'none') return undefined;
  if (state.mode === 'request') {
    const header = request.headers.get(CHALLENGE_HEADER);
    if (header === null || header === '' || header.length > MAX_CHALLENGE_LENGTH) {
      return deny(
        state,
        request,
        'CHALLENGE_MISMATCH',
        `send the challenge the presentation answers in ${CHALLENGE_HEADER}`,
        'presentation',
      );
    }
    return header;
  }
  const challenge = proofChallenge(presentation);
  // One attempt per nonce: consumed before the signature is checked, so a forgery guesses once.
  if (
    typeof challenge !== 'string' ||
    challenge.length > MAX_CHALLENGE_LENGTH ||
    !(await (state.challenges as ChallengeStore).consume(challenge))
  ) {
    return deny(
      state,
      request,
      'CHALLENGE_MISMATCH',
      'the presentation does not answer a live challenge of this verifier: get one from the challenge endpoint',
      'presentation',
    );
  }
  return challenge;
}

/**
 * Decides whether `request` may proceed, from its `Authorization: VP …` header alone (the body
 * is never read). Refusals are values, never exceptions; only a misconfiguration
 * (VerifierOptionsError) or a throwing `requiredScopes` function rejects.
 */
export async function verifyRequest(request: Request, options: VerifyRequestOptions): Promise<RequestVerdict> {
  const state = stateFor(options);
  let presentation: JsonValue;
  try {
    presentation = decodePresentationHeader(request.headers.get('authorization'), state.maxBytes);
  } catch (error) {
    if (!(error instanceof PresentationHeaderError)) throw error;
    return deny(state, request, 'MALFORMED', error.message, 'presentation', HEADER_STATUS[error.code]);
  }
  // The nonce is taken first (endpoint mode): whatever is refused after this, that presentation
  // is spent. Then a path with no rule is refused before any crypto is spent on it.
  const challenge = await expectedChallenge(state, request, presentation);
  if (typeof challenge === 'object') return challenge;
  const url = new URL(request.url);
  const methods = requestMethods(request, url);
  const requiredScopes = methods === undefined ? undefined : await scopesFor(state.scopes, request, url, methods);
  if (requiredScopes === undefined) {
    const asked = methods === undefined ? 'a method override that is no method name:' : methods.join(' and ');
    return deny(state, request, 'INSUFFICIENT_SCOPE', `no scope rule allows ${asked} ${url.pathname}`, 'scopes');
  }

  const result = await verifyPresentation(presentation, {
    ...state.verification,
    ...(challenge === undefined ? {} : { expectedChallenge: challenge }),
    requiredScopes,
    now: new Date(state.now()),
  });
  if (!result.valid)
    return deny(state, request, result.reason, result.message, result.failedCheck, undefined, result.checks);
  return {
    allowed: true,
    claims: {
      agentDid: result.agentDid,
      effectiveScopes: result.effectiveScopes,
      privilegeScopes: result.privilegeScopes,
      vpId: result.vpId,
      chain: result.chain,
    },
    checks: result.checks,
    sources: result.sources,
  };
}

// ---------------------------------------------------------------------------------------------
// Responses and forwarding
// ---------------------------------------------------------------------------------------------

const NO_STORE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** The refusal as a Response: JSON `{valid:false, reason, message}`, its status, `WWW-Authenticate` on 401. */
export function denialResponse(verdict: RequestDenied): Response {
  return new Response(JSON.stringify(verdict.body), {
    status: verdict.status,
    headers: { ...NO_STORE, ...verdict.headers },
  });
}

/** A fresh nonce from the options' store, as the challenge endpoint returns it. */
export async function issueChallenge(options: VerifyRequestOptions): Promise<{ challenge: string; expiresAt: string }> {
  const state = stateFor(options);
  if (!state.challenges) invalidVerifierOptions("issueChallenge needs challenge: 'endpoint'");
  const { challenge, expiresAt } = await state.challenges.issue();
  return { challenge, expiresAt: new Date(expiresAt).toISOString() };
}

/**
 * The challenge endpoint: for a request to `challengePath` (in `'endpoint'` mode) the Response
 * to send — 200 `{challenge, expiresAt}` to GET, 405 otherwise; undefined for any other request.
 */
export async function handleChallengeRequest(
  request: Request,
  options: VerifyRequestOptions,
): Promise<Response | undefined> {
  const state = stateFor(options);
  if (state.mode !== 'endpoint' || new URL(request.url).pathname !== state.challengePath) return undefined;
  if (request.method.toUpperCase() !== 'GET') {
    return new Response(JSON.stringify({ error: 'method not allowed' }), {
      status: 405,
      headers: { ...NO_STORE, allow: 'GET' },
    });
  }
  return new Response(JSON.stringify(await issueChallenge(options)), { status: 200, headers: NO_STORE });
}

/**
 * Sets the claim headers on `headers` (mutated) after removing `Authorization` and every
 * incoming `X-Mandate-*` header, so what the application reads was set by the verifier.
 */
export function applyClaimHeaders(headers: Headers, claims: AgentClaims): void {
  const names = [...headers.keys()];
  for (const name of names) {
    if (name === 'authorization' || isMandateHeaderName(name)) headers.delete(name);
  }
  headers.set(CLAIM_HEADERS.agentDid, claims.agentDid);
  headers.set(CLAIM_HEADERS.scopes, claims.effectiveScopes.join(' '));
  headers.set(CLAIM_HEADERS.vpId, claims.vpId);
}

/** A copy of `request` to forward upstream: claims in headers, no presentation, no spoofed claims. */
export function forwardClaims(request: Request, claims: AgentClaims): Request {
  const headers = new Headers(request.headers);
  applyClaimHeaders(headers, claims);
  // Fetch §5.4 (Request constructor): a navigation request cannot be re-initialised, so a
  // service worker forwards it as a same-origin request with the same method and body.
  if (request.mode === 'navigate') {
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    return new Request(request.url, {
      method: request.method,
      headers,
      credentials: request.credentials,
      redirect: 'manual',
      mode: 'same-origin',
      ...(hasBody ? { body: request.body, duplex: 'half' } : {}),
    } as RequestInit);
  }
  return new Request(request, { headers });
}
