/**
 * The service-worker verifier's configuration: a JSON document (a file the worker fetches, or
 * an object the page posts to it), validated here before anything is guarded with it.
 *
 * Validation is strict on purpose: an unknown key is refused rather than ignored, because a
 * typo in a security configuration (`trustedIssuer`, `route`) must not silently leave a path
 * open. Limits bound what a configuration can make the worker do per request.
 *
 * Routes are verifyRequest's scope table (first matching rule wins). A path that some rule
 * names is guarded for EVERY method: the worker hands every request on it to verifyRequest,
 * which refuses a method no rule lists (INSUFFICIENT_SCOPE), so nothing on it is let through
 * unverified. Paths no rule names are not the worker's business and go to the network as sent.
 */
import {
  matchesPathPattern,
  pathSegments,
  prepareVerifier,
  VerifierOptionsError,
  type VerifyRequestOptions,
} from '../request.ts';
import { VerifierWorkerError } from './errors.ts';
import { DEFAULT_REPORT_CHANNEL } from './messages.ts';

/**
 * One line of the scope table, in verifyRequest's format (verifier-worker/request.ts ScopeRule):
 * `path` is matched segment by segment, percent-decoded and ASCII case-insensitive; `:name`
 * matches any one segment; a final `*` matches any rest, including none. `method` (default any;
 * a GET rule also covers HEAD) narrows the rule.
 */
export interface RouteRule {
  method?: string | string[];
  path: string;
  /** Scopes a request on this route needs; [] = any valid presentation. */
  scopes: string[];
}

/** How the presentation's challenge is checked (the same choices as verifyRequest). */
export type ChallengeMode = 'endpoint' | 'request' | 'none';

export interface VerifierWorkerConfig {
  /** This service's name or resource URI: a presentation's proof `domain` must equal or cover it. */
  target: string;
  /** DIDs whose AgentCredentials are accepted as chain roots. */
  trustedIssuers: string[];
  /** DIDs of service providers whose DelegationGrantCredentials are accepted. */
  trustedGrantIssuers?: string[];
  /** The guarded paths of this origin and the scopes each needs. */
  routes: RouteRule[];
  /**
   * 'endpoint' (default): the worker answers GET `challengePath` with a single-use nonce;
   * 'request': the nonce travels in the request (X-Mandate-Challenge), single use by the replay cache;
   * 'none': any challenge, single use by the replay cache.
   */
  challenge?: ChallengeMode;
  /** Where the worker serves nonces in 'endpoint' mode (default /.well-known/mandate/challenge). */
  challengePath?: string;
  /** How long a stored did:web document is used before it is fetched again (default 5 min). */
  didTtlMs?: number;
  /** How long past its TTL a stored did:web document may stand in while its host is unreachable (RFC 5861 stale-if-error; default 0). */
  didStaleIfErrorMs?: number;
  /** TTL of a status list that states none (Bitstring Status List §2.2 `ttl`; default 5 min). */
  statusListTtlMs?: number;
  /** How long past its TTL a stored status list may stand in while its host is unreachable (default 0: fail closed). */
  statusListStaleIfErrorMs?: number;
  /** Most presentation ids remembered against replay (default 10,000). */
  replayMax?: number;
  /** Clock tolerance both ways (default 60 s). */
  clockSkewMs?: number;
  /** Longest presentation lifetime accepted (default 1 hour; see docs/verifier.md on replay capacity). */
  maxPresentationLifetimeMs?: number;
  /** Refuse root credentials and grants without a revocation or suspension entry (default false). */
  requireCredentialStatus?: boolean;
  /** Fetch DID documents and status lists from loopback hosts over http. Tests and local development only. */
  allowHttpLoopback?: boolean;
  /** BroadcastChannel the worker reports decisions on (default "mandate-verifier"); null: no reports. */
  reportChannel?: string | null;
}

/** Defaults of every optional setting, frozen so a caller cannot change them for everyone. */
export const WORKER_CONFIG_DEFAULTS: Readonly<
  Omit<ResolvedWorkerConfig, 'target' | 'trustedIssuers' | 'trustedGrantIssuers' | 'routes'>
> = /* @__PURE__ */ Object.freeze({
  challenge: 'endpoint',
  challengePath: '/.well-known/mandate/challenge',
  didTtlMs: 5 * 60_000,
  didStaleIfErrorMs: 0,
  statusListTtlMs: 5 * 60_000,
  statusListStaleIfErrorMs: 0,
  replayMax: 10_000,
  clockSkewMs: 60_000,
  maxPresentationLifetimeMs: 3600_000,
  requireCredentialStatus: false,
  allowHttpLoopback: false,
  reportChannel: DEFAULT_REPORT_CHANNEL,
});

export type ResolvedWorkerConfig = Required<Omit<VerifierWorkerConfig, 'reportChannel'>> & {
  reportChannel: string | null;
};

const MAX_ROUTES = 256;
/** Longest duration accepted anywhere: 30 days. */
const MAX_DURATION_MS = 30 * 24 * 3600_000;
const MAX_REPLAY = 1_000_000;
const ROUTE_KEYS: ReadonlySet<string> = /* @__PURE__ */ new Set(['method', 'path', 'scopes']);
const KEYS: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'target',
  'trustedIssuers',
  'trustedGrantIssuers',
  'routes',
  ...Object.keys(WORKER_CONFIG_DEFAULTS),
]);

/** The worker's own settings, what each must be, and the check. (verifyRequest judges the rest.) */
const CHECKS: ReadonlyArray<[keys: string[], expected: string, check: (value: unknown) => boolean]> = [
  [
    [
      'didTtlMs',
      'didStaleIfErrorMs',
      'statusListTtlMs',
      'statusListStaleIfErrorMs',
      'clockSkewMs',
      'maxPresentationLifetimeMs',
    ],
    `an integer number of ms from 0 to ${MAX_DURATION_MS}`,
    (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_DURATION_MS,
  ],
  [
    ['replayMax'],
    `an integer from 1 to ${MAX_REPLAY}`,
    (v) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_REPLAY,
  ],
  [['allowHttpLoopback', 'requireCredentialStatus'], 'true or false', (v) => typeof v === 'boolean'],
  [
    ['reportChannel'],
    'null or 1 to 64 characters of [A-Za-z0-9._:-]',
    (v) => v === null || (typeof v === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(v)),
  ],
];

function invalid(message: string): never {
  throw new VerifierWorkerError('CONFIG_INVALID', message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, known: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(value))
    if (!known.has(key)) invalid(`"${key.slice(0, 64)}" is not a setting of ${where}`);
}

/**
 * Validates a configuration (an already-parsed JSON value) and fills in the defaults. Throws
 * VerifierWorkerError CONFIG_INVALID naming the first thing wrong. The verifier's own settings
 * (target, issuers, the scope table, challenge mode and path) are judged by verifyRequest's
 * prepareVerifier, so the worker accepts exactly what a server would.
 */
export function parseWorkerConfig(value: unknown): ResolvedWorkerConfig {
  if (!isRecord(value)) invalid('the configuration must be a JSON object');
  onlyKeys(value, KEYS, 'the verifier worker');
  const { routes } = value;
  if (!Array.isArray(routes) || routes.length > MAX_ROUTES)
    invalid(`routes must be an array of at most ${MAX_ROUTES} rules`);
  routes.forEach((rule: unknown, i) =>
    isRecord(rule) ? onlyKeys(rule, ROUTE_KEYS, `routes[${i}]`) : invalid(`routes[${i}] must be an object`),
  );
  const given = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  const config: Record<string, unknown> = {
    ...WORKER_CONFIG_DEFAULTS,
    trustedGrantIssuers: [],
    ...given,
    routes: routes.map((rule: Record<string, unknown>) => ({ ...rule })),
  };
  checkSettings(config);
  return config;
}

/** The merged settings: the worker's own checked by CHECKS, the verifier's by verifyRequest's prepareVerifier. */
function checkSettings(config: Record<string, unknown>): asserts config is ResolvedWorkerConfig {
  for (const [keys, expected, check] of CHECKS) {
    for (const key of keys) if (!check(config[key])) invalid(`${key} must be ${expected}`);
  }
  try {
    // A throwaway verifier: only its validation matters here (a replay cache, which the
    // 'request' and 'none' modes require, is supplied by the worker). It takes the settings
    // as given, since checking them is what it is for.
    prepareVerifier({
      ...verifierSettings(config as ResolvedWorkerConfig),
      replayCache: { remember: () => false },
    });
  } catch (error) {
    if (error instanceof VerifierOptionsError) invalid(error.message);
    throw error;
  }
}

/** The part of the configuration that verifyRequest reads. */
export function verifierSettings(config: ResolvedWorkerConfig): VerifyRequestOptions {
  return {
    target: config.target,
    trustedIssuers: config.trustedIssuers,
    trustedGrantIssuers: config.trustedGrantIssuers,
    requiredScopes: config.routes,
    challenge: config.challenge,
    challengePath: config.challengePath,
    clockSkewMs: config.clockSkewMs,
    maxPresentationLifetimeMs: config.maxPresentationLifetimeMs,
    requireCredentialStatus: config.requireCredentialStatus,
  };
}

/**
 * Whether the worker guards `url`'s path: some rule's pattern matches it (verifyRequest's own
 * matching), whatever the method. A path that does not decode is guarded (verifyRequest then
 * refuses it), never waved through.
 */
export function isGuarded(routes: readonly RouteRule[], url: URL): boolean {
  const segments = pathSegments(url.pathname);
  return segments === undefined || routes.some((rule) => matchesPathPattern(rule.path, segments));
}
