/**
 * One call of the issuer API by its route-table entry (wallet/contract/routes.ts): the path filled
 * from `params`, the query and body sent as given, the admin key (or client secret) sent when the
 * entry's `auth` takes one, retried only when the entry is safe to repeat (every GET, and the
 * POSTs marked `repeatable`), and the answer checked against the entry's response schema.
 */
import {
  pathOf,
  successStatus,
  type EndpointAuth,
  type EndpointInput,
  type EndpointOutput,
  type EndpointSpec,
} from '../contract/endpoint.ts';
import { invalid } from './answers.ts';
import type { RequestSpec, Transport } from './transport.ts';

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Values this call sends that must never appear in an error (an enrollment token, a challenge). */
  secrets?: readonly string[] | undefined;
}

const ADMIN: Record<EndpointAuth, RequestSpec['admin']> = {
  public: undefined,
  admin: 'required',
  'admin-or-open': 'optional',
  agent: 'required',
  introspection: 'required',
};

/** The query as the transport sends it: strings and numbers, undefined members left out. */
function queryOf(query: object | undefined): Record<string, string | number> | undefined {
  if (query === undefined) return undefined;
  const entries = Object.entries(query).filter(([, value]) => value !== undefined);
  return Object.fromEntries(entries.map(([name, value]) => [name, typeof value === 'number' ? value : String(value)]));
}

function requestOf<S extends EndpointSpec>(spec: S, input: EndpointInput<S>, options: CallOptions): RequestSpec {
  const success = spec.responses[successStatus(spec)];
  const answerStatuses = Object.keys(spec.responses)
    .map(Number)
    .filter((status) => status >= 300);
  const admin = ADMIN[spec.auth];
  const query = queryOf(input.query ?? undefined);
  return {
    method: spec.method,
    path: pathOf(spec, input.params ?? {}),
    ...(query ? { query } : {}),
    ...(input.body === undefined ? {} : { body: input.body }),
    ...(admin ? { admin } : {}),
    idempotent: spec.method === 'GET' || spec.repeatable === true,
    ...(answerStatuses.length > 0 ? { answerStatuses } : {}),
    ...(success?.mediaTypes?.[0] === 'application/vc' ? { expect: 'credential' as const } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    signal: options.signal,
  };
}

/** Makes the call and returns the answer as the entry's schema reads it; RESPONSE_INVALID otherwise. */
export async function callEndpoint<S extends EndpointSpec>(
  transport: Transport,
  spec: S,
  input: EndpointInput<S>,
  options: CallOptions = {},
): Promise<EndpointOutput<S>> {
  const response = await transport.request(requestOf(spec, input, options));
  const schema = spec.responses[response.status]?.schema;
  const parsed = schema?.safeParse(response.json);
  if (parsed?.success !== true) throw invalid(`the answer ${spec.method} ${spec.path} defines`);
  return parsed.data as EndpointOutput<S>;
}
