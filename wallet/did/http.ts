/**
 * The DID layer's view of wallet/net's bounded JSON fetch (time-boxed, size-capped while
 * streaming, redirect-free, strict JSON): option checks, and its failures translated into
 * DID Resolution error names (DID Core §7.1.2), because a resolver reports failures in
 * resolution metadata instead of throwing.
 */
import { fetchJson, type FetchJsonOptions, type FetchLike, type HttpFailure, type HttpLimits } from '../net/http.ts';
import { DidError } from './errors.ts';
import type { DidResolutionErrorName } from './types.ts';

export type { FetchLike, HttpLimits };

export type DidFetchResult =
  { ok: true; contentType: string; json: unknown } | { ok: false; error: DidResolutionErrorName; message: string };

/**
 * Throws DidError INVALID_OPTIONS unless the limits are positive integers below 2^31: timers
 * take a signed 32-bit delay, and a longer one fires at once (so every fetch would time out).
 */
export function assertHttpLimits(limits: HttpLimits): void {
  for (const key of ['timeoutMs', 'maxBytes'] as const) {
    const value = limits[key];
    if (!Number.isInteger(value) || value <= 0 || value >= 2 ** 31) {
      throw new DidError('INVALID_OPTIONS', `${key} must be a positive integer below 2^31`);
    }
  }
}

const RESOLUTION_ERROR: Record<HttpFailure, DidResolutionErrorName> = {
  'not-found': 'notFound',
  'content-type': 'representationNotSupported',
  json: 'invalidDidDocument',
  redirect: 'internalError',
  status: 'internalError',
  'too-large': 'internalError',
  timeout: 'internalError',
  network: 'internalError',
};

/** GETs a JSON document for a resolver; failures come back as resolution error names. */
export async function fetchForResolution(
  url: string,
  // `fetch` named even when undefined: a resolver must hand on its caller's fetch, never drop it.
  options: FetchJsonOptions & { fetch: FetchLike | undefined },
): Promise<DidFetchResult> {
  const result = await fetchJson(url, options);
  if (result.ok) return { ok: true, contentType: result.contentType, json: result.json };
  const message =
    result.failure === 'redirect' ? 'redirect refused: DID documents are not fetched across redirects' : result.message;
  return { ok: false, error: RESOLUTION_ERROR[result.failure], message };
}
