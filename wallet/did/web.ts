/**
 * did:web (W3C CCG did:web Method Specification §3.2 "Read (Resolve)").
 *
 *   did:web:example.com                 → https://example.com/.well-known/did.json
 *   did:web:example.com:agents:a1       → https://example.com/agents/a1/did.json
 *   did:web:localhost%3A8787            → port 8787 (the ":" before a port is percent-encoded)
 *
 * The host named by a DID is chosen by whoever presents it, so resolution refuses what would
 * turn the verifier into a proxy into its own network: IP literals of private, loopback and
 * link-local ranges (unless `allowPrivateNetwork`), plain http (only loopback, only with
 * `allowHttpLoopback`, for tests and local development), redirects, slow and oversized
 * responses (see wallet/net/http.ts). Host *names* that resolve to private addresses cannot be seen
 * from fetch in a browser; deployments that need that guarantee put an egress proxy in front.
 */
import { assertDidDocument } from './document.ts';
import { DidError } from './errors.ts';
import { checkUrlPolicy, classifyHost, type UrlPolicy } from '../net/url-policy.ts';
import { assertHttpLimits, fetchForResolution, type FetchLike } from './http.ts';
import { tryParseDid } from './parse.ts';
import { resolutionError, type DidResolutionResult, type MethodResolver } from './types.ts';

/** `allowHttpLoopback` / `allowPrivateNetwork` (both off by default) are wallet/net's UrlPolicy. */
export interface WebResolverOptions extends UrlPolicy {
  /** fetch implementation (default: the global one). */
  fetch?: FetchLike;
  /** Whole-request deadline (default 3000 ms). */
  timeoutMs?: number;
  /** Largest document accepted (default 64 KiB). */
  maxBytes?: number;
}

export const DID_WEB_DEFAULTS = /* @__PURE__ */ Object.freeze({ timeoutMs: 3000, maxBytes: 64 * 1024 });

/** DID Core §6.2–6.3 representations, and plain JSON as most hosts serve did.json. */
const DID_MEDIA_TYPES: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'application/did+json',
  'application/did+ld+json',
  'application/json',
  'application/ld+json',
]);
const DID_ACCEPT = 'application/did+json, application/did+ld+json;q=0.9, application/json;q=0.8';

// A decoded host: DNS name or IP literal, optional port. Userinfo, paths and anything else that
// would change which server is asked are refused.
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;
const PATH_SEGMENT = /^[A-Za-z0-9._~-]+$/;

interface UrlFailure {
  error: 'invalidDid' | 'internalError';
  message: string;
}

function decodeComponent(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    return undefined;
  }
}

// did:web §3.2 steps 1–6, plus the network policy. Failures are values so the resolver can
// report them as resolution metadata and didWebToUrl can throw them.
function documentUrl(did: string, policy: UrlPolicy): URL | UrlFailure {
  const parsed = tryParseDid(did, { method: 'web', bare: true });
  if ('error' in parsed) return parsed;
  const [hostPart = '', ...pathParts] = parsed.id.split(':');
  const host = decodeComponent(hostPart);
  const hostMatch = host === undefined ? null : HOST.exec(host);
  let probe: URL | undefined;
  try {
    if (hostMatch && Number(hostMatch[1] ?? 443) <= 65535) probe = new URL(`https://${host}/`);
  } catch {
    probe = undefined;
  }
  if (!probe)
    return { error: 'invalidDid', message: 'did:web host must be a domain name or IP address with an optional port' };
  const segments = pathParts.map(decodeComponent);
  // did:web §3.2 step 2 turns ":" into "/"; a decoded "/" or ".." would step outside the path.
  if (!segments.every((s) => s !== undefined && PATH_SEGMENT.test(s) && s !== '.' && s !== '..')) {
    return {
      error: 'invalidDid',
      message: 'did:web path segments may only contain A-Z a-z 0-9 . _ ~ - and must not be "." or ".."',
    };
  }
  const path = segments.length === 0 ? '/.well-known/did.json' : `/${segments.join('/')}/did.json`;
  // Plain http only where the policy could allow it (loopback); checkUrlPolicy has the last word.
  const scheme = classifyHost(probe.hostname) === 'loopback' && policy.allowHttpLoopback === true ? 'http' : 'https';
  try {
    return checkUrlPolicy(
      new URL(path, `${scheme}://${probe.host}`).href,
      policy,
      (message) => new DidError('INVALID_DID', message),
    );
  } catch (error) {
    return {
      error: 'internalError',
      message: `private address refused: ${error instanceof DidError ? error.message : 'host refused'}`,
    };
  }
}

/**
 * The URL of a did:web document (did:web §3.2). Throws DidError INVALID_DID for a DID that is
 * not a did:web, names an unusable host or path, or names a host the network policy refuses
 * (private and loopback addresses unless allowed).
 */
export function didWebToUrl(did: string, policy: UrlPolicy = {}): URL {
  const url = documentUrl(did, policy);
  if (url instanceof URL) return url;
  throw new DidError('INVALID_DID', url.message);
}

/** A did:web method resolver with the given network policy and limits. */
export function createWebResolver(options: WebResolverOptions = {}): MethodResolver {
  const limits = {
    timeoutMs: options.timeoutMs ?? DID_WEB_DEFAULTS.timeoutMs,
    maxBytes: options.maxBytes ?? DID_WEB_DEFAULTS.maxBytes,
  };
  assertHttpLimits(limits);
  const policy = {
    allowHttpLoopback: options.allowHttpLoopback === true,
    allowPrivateNetwork: options.allowPrivateNetwork === true,
  };

  return async (did): Promise<DidResolutionResult> => {
    const url = documentUrl(did, policy);
    if (!(url instanceof URL)) return resolutionError(url.error, url.message);
    const fetched = await fetchForResolution(url.href, {
      limits,
      fetch: options.fetch,
      urlPolicy: policy,
      accept: DID_ACCEPT,
      mediaTypes: DID_MEDIA_TYPES,
    });
    if (!fetched.ok) return resolutionError(fetched.error, fetched.message);
    try {
      const didDocument = assertDidDocument(fetched.json, did);
      return { didDocument, didDocumentMetadata: {}, didResolutionMetadata: { contentType: fetched.contentType } };
    } catch (error) {
      return resolutionError('invalidDidDocument', error instanceof DidError ? error.message : 'invalid DID document');
    }
  };
}
