/**
 * Calls to the issuer's admin API. The admin key lives in sessionStorage only (gone when the
 * tab closes), is sent only in the Authorization header (never in a URL, so never in logs or
 * history), and is dropped as soon as the issuer refuses it.
 *
 * Every failure becomes a ConsoleApiError carrying the issuer's own code (`UNAUTHORIZED`,
 * `CREDENTIAL_ALREADY_REVOKED`, …) or, when there is no answer to read, one of the console's
 * codes below, with a message fit to show an operator.
 */
import { pathOf, type EndpointInput, type EndpointOutput, type EndpointSpec } from '../../wallet/contract/endpoint.ts';
import { ROUTES, type RouteName, type Routes } from '../../wallet/contract/routes.ts';
import { MandateError } from '../../wallet/crypto/errors.ts';

/** The console's own codes; other codes are the issuer's (docs/api.md). */
export type ConsoleErrorCode = 'NETWORK_ERROR' | 'BAD_RESPONSE';

export class ConsoleApiError extends MandateError<ConsoleErrorCode | (string & {})> {
  override name = 'ConsoleApiError';
  readonly status: number;
  readonly details: unknown;
  constructor(code: string, message: string, status: number, details?: unknown) {
    super(code, message);
    this.status = status;
    this.details = details;
  }
}

const STORAGE_KEY = 'mandate.console.adminKey';

export const adminKey = {
  get: (): string | null => sessionStorage.getItem(STORAGE_KEY),
  set: (key: string): void => sessionStorage.setItem(STORAGE_KEY, key),
  clear: (): void => sessionStorage.removeItem(STORAGE_KEY),
};

/** Fired when the issuer refuses the stored key: the shell returns to the sign-in form. */
export const SIGNED_OUT_EVENT = 'mandate:signed-out';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  /** Use this key instead of the stored one (signing in). */
  key?: string;
}

/** A detail member as text: strings as they are, anything else as JSON. */
function detailText(value: unknown): string {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

function describeValidation(details: unknown): string {
  if (!Array.isArray(details)) return '';
  const parts = details
    .filter((d): d is { path?: unknown; message?: unknown } => typeof d === 'object' && d !== null)
    .map((d) => `${detailText(d.path).replace(/^(json|query|param)\./, '')}: ${detailText(d.message)}`);
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const key = options.key ?? adminKey.get();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      credentials: 'omit',
      cache: 'no-store',
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
  } catch (cause) {
    throw new ConsoleApiError(
      'NETWORK_ERROR',
      'Cannot reach the issuer. Check that it is running and try again.',
      0,
      String(cause),
    );
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ConsoleApiError(
      'BAD_RESPONSE',
      `The issuer answered ${response.status} with something that is not JSON.`,
      response.status,
    );
  }
  if (response.ok) return json as T;
  const error = (json as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  const refusal = json as { reason?: unknown; message?: unknown } | undefined;
  const code =
    typeof error?.code === 'string'
      ? error.code
      : typeof refusal?.reason === 'string'
        ? refusal.reason
        : `HTTP_${response.status}`;
  const message =
    typeof error?.message === 'string'
      ? error.message
      : typeof refusal?.message === 'string'
        ? refusal.message
        : `The issuer answered ${response.status}.`;
  if (response.status === 401 && options.key === undefined) {
    adminKey.clear();
    window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  }
  throw new ConsoleApiError(code, message + describeValidation(error?.details), response.status, error?.details);
}

/**
 * An endpoint of the route table by name (wallet/contract/routes.ts), typed from its entry: the
 * method and path come from the table, so no path is written here.
 */
export async function call<N extends RouteName>(
  name: N,
  input: EndpointInput<Routes[N]>,
  options: Pick<RequestOptions, 'key'> = {},
): Promise<EndpointOutput<Routes[N]>> {
  const spec: EndpointSpec = ROUTES[name];
  const search = input.query === undefined ? '' : query(input.query as Record<string, string | number | undefined>);
  return api<EndpointOutput<Routes[N]>>(`${pathOf(spec, input.params ?? {})}${search}`, {
    ...options,
    method: spec.method,
    ...(input.body === undefined ? {} : { body: input.body }),
  });
}

export const enc = encodeURIComponent;

/** A query string from defined, non-empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

// The shapes the console reads are the API's wire types, defined once in the contract
// (wallet/contract), which the issuer validates and publishes with: a change on either side
// fails the console's typecheck. `call` reads the route table at run time (method and path), so
// the console's bundle carries the contract's zod schemas too — an operator page served by the
// issuer, where one definition of each path is worth the bytes.
export type { AgentClientSecret, AgentDetail, AgentInfo as Agent } from '../../wallet/contract/agents.ts';
export type { AuditChainVerdictBody as ChainVerdict, AuditRecord } from '../../wallet/contract/audit.ts';
export type {
  CredentialView as Credential,
  StatusChangeView as StatusChange,
} from '../../wallet/contract/credentials.ts';
export type { HostedDid } from '../../wallet/contract/dids.ts';
export type { EnrollmentToken, EnrollmentTokenInfo as TokenState } from '../../wallet/contract/enrollment.ts';
/** The console's own reads (wallet/contract/console.ts `consoleEndpoints`). */
export type { ConsoleAgent, StatusListFill } from '../../wallet/contract/console.ts';
