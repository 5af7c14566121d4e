/**
 * Refusals as HTTP answers (docs/verifier.md §Status codes): the status a reason earns, the
 * `WWW-Authenticate` of a 401, and the JSON body, which never echoes the presentation.
 */
import type { RefusalCode } from '../wallet/vc/reasons.ts';
import { PRESENTATION_SCHEME, type PresentationHeaderErrorCode } from '../wallet/vc/transport.ts';
import type { CheckName, CheckOutcome } from '../wallet/vc/verify.ts';
import { CHALLENGE_HEADER } from './challenge-store.ts';
import type { VerifierState } from './options.ts';
import type { DenialStatus, RequestDenied } from './verdict.ts';

/**
 * The HTTP status of a refusal (docs/verifier.md §Status codes): MALFORMED is 400; a failure of
 * the presentation itself (its proof, freshness, challenge, target, holder key; replay) is 401,
 * "authenticate again"; a failure of the authority it carries (credentials, issuers' DIDs,
 * chain, trust, scopes, status) is 403, "a new presentation of the same authority won't help".
 */
export function denialStatus(reason: RefusalCode, failedCheck: CheckName): DenialStatus {
  if (reason === 'MALFORMED') return 400;
  // A signed request's own failures (its chain header, its signature) are its `presentation`'s.
  return failedCheck === 'presentation' || failedCheck === 'signature' || failedCheck === 'replay' ? 401 : 403;
}

/** `WWW-Authenticate` for a 401 (RFC 9110 §11.6.1), telling the client how to get a challenge. */
function authenticateHeader(state: VerifierState, request: Request, reason: RefusalCode): string {
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

export function deny(
  state: VerifierState,
  request: Request,
  reason: RefusalCode,
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

/** The status of a refusal of the Authorization header itself. */
export const HEADER_STATUS: Record<PresentationHeaderErrorCode, DenialStatus> = {
  AUTHORIZATION_MISSING: 401,
  AUTHORIZATION_SCHEME: 401,
  AUTHORIZATION_ENCODING: 401,
  PRESENTATION_TOO_LARGE: 400,
  PRESENTATION_NOT_JSON: 400,
};

export const NO_STORE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** The refusal as a Response: JSON `{valid:false, reason, message}`, its status, `WWW-Authenticate` on 401. */
export function denialResponse(verdict: RequestDenied): Response {
  return new Response(JSON.stringify(verdict.body), {
    status: verdict.status,
    headers: { ...NO_STORE, ...verdict.headers },
  });
}
