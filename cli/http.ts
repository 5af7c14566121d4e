/**
 * The issuer calls the CLI needs that `IssuerClient` (wallet/client) does not offer yet:
 * token and agent listings, `POST /v1/vcs`, and the signed status list (served as
 * `application/vc`, which the client's JSON transport refuses by design). The JSON calls go
 * through the client's own transport (deadline, size cap, no redirects, retries only for GETs,
 * secrets redacted), so they behave exactly like the client's; the status list is one bounded
 * GET. When IssuerClient grows these calls, this module shrinks to nothing.
 */
import { bytesToUtf8 } from '../wallet/crypto/bytes.ts';
import { parseJson, type JsonObject, type JsonValue } from '../wallet/crypto/jcs.ts';
import { IssuerApiError, IssuerClientError } from '../wallet/client/errors.ts';
import type { CredentialView } from '../wallet/client/issuer-client.ts';
import { createTransport, type TransportOptions } from '../wallet/client/transport.ts';
import { readBounded } from '../wallet/net/http.ts';

/** docs/api.md `GET /v1/enrollment-tokens`: never the token values. */
export interface TokenInfo {
  tokenId: string;
  state: 'outstanding' | 'used' | 'expired';
  requestedScopes: string[];
  maxDelegationDepth: number;
  requestedDomains: string[];
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
  agentDid?: string;
}

/** docs/api.md `Agent`. */
export interface AgentInfo {
  did: string;
  id: string;
  custody: 'server' | 'self';
  privilegeScopes: string[];
  delegationDepth: number;
  domains?: string[];
  currentCredentialId?: string;
  createdAt: string;
  didDocumentUrl?: string;
  deactivated?: boolean;
}

/** docs/api.md `AgentDetail`. */
export interface AgentDetail extends AgentInfo {
  currentCredential?: CredentialView;
  credentials: { vcId: string; type: string; state: string; issuedAt: string }[];
}

export interface IssueCredentialInput {
  subjectDid: string;
  privilegeScopes: string[];
  delegationDepth: number;
  domains?: string[];
  validitySeconds?: number;
}

export interface Page {
  cursor?: string;
  limit?: number;
}

export interface OperatorApi {
  listTokens(query: Page & { state?: TokenInfo['state'] }): Promise<{ tokens: TokenInfo[]; nextCursor?: string }>;
  listAgents(query: Page): Promise<{ agents: AgentInfo[]; nextCursor?: string }>;
  getAgent(did: string): Promise<AgentDetail>;
  issueCredential(input: IssueCredentialInput): Promise<CredentialView>;
  /** The signed BitstringStatusListCredential as JSON (not verified here: status-list show only reports it). */
  fetchStatusList(listId: string): Promise<JsonObject>;
}

const STATUS_LIST_MAX_BYTES = 256 * 1024;
const STATUS_LIST_TYPES = new Set(['application/vc', 'application/vc+ld+json', 'application/ld+json', 'application/json']);

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(what: string): IssuerClientError {
  return new IssuerClientError('RESPONSE_INVALID', `the issuer's answer is not ${what}`);
}

function withArray<T>(json: JsonValue, member: string, what: string): T {
  if (!isObject(json) || !Array.isArray(json[member])) throw invalid(what);
  return json as unknown as T;
}

export function createOperatorApi(options: TransportOptions & { timeoutMs: number }): OperatorApi {
  const transport = createTransport(options);
  const enc = encodeURIComponent;
  const get = async (path: string, query: Record<string, string | number | undefined> = {}): Promise<JsonValue> =>
    (await transport.request({ method: 'GET', path, query, admin: 'required', idempotent: true })).json;

  return {
    async listTokens(query) {
      return withArray(await get('/v1/enrollment-tokens', { state: query.state, cursor: query.cursor, limit: query.limit }), 'tokens', 'a token list');
    },
    async listAgents(query) {
      return withArray(await get('/v1/agents', { cursor: query.cursor, limit: query.limit }), 'agents', 'an agent list');
    },
    async getAgent(did) {
      const json = await get(`/v1/agents/${enc(did)}`);
      if (!isObject(json) || json.did !== did) throw invalid(`the agent ${did}`);
      return withArray(json, 'credentials', 'an agent');
    },
    async issueCredential(input) {
      const body = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
      const { json } = await transport.request({ method: 'POST', path: '/v1/vcs', body, admin: 'required', idempotent: false });
      if (!isObject(json) || typeof json.vcId !== 'string' || !isObject(json.verifiableCredential)) throw invalid('a credential');
      return json as unknown as CredentialView;
    },
    async fetchStatusList(listId) {
      let response: Response;
      try {
        response = await fetch(`${transport.baseUrl}/v1/status-list/${enc(listId)}`, {
          headers: { accept: 'application/vc, application/json;q=0.9' },
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        throw timedOut ? new IssuerClientError('TIMEOUT', `no answer within ${options.timeoutMs} ms`) : new IssuerClientError('NETWORK_ERROR', 'the issuer could not be reached');
      }
      const bytes = await readBounded(response.body, STATUS_LIST_MAX_BYTES);
      if (bytes === undefined) throw new IssuerClientError('RESPONSE_TOO_LARGE', `the status list is larger than ${STATUS_LIST_MAX_BYTES} bytes`);
      let json: JsonValue | undefined;
      try {
        json = parseJson(bytesToUtf8(bytes), { maxBytes: STATUS_LIST_MAX_BYTES });
      } catch {
        json = undefined;
      }
      if (response.status !== 200) {
        const error = isObject(json) && isObject(json.error) ? json.error : undefined;
        const code = typeof error?.code === 'string' ? error.code : 'HTTP_ERROR';
        throw new IssuerApiError(response.status, code, typeof error?.message === 'string' ? error.message : `HTTP ${response.status} from the issuer`);
      }
      const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (!STATUS_LIST_TYPES.has(type) || !isObject(json)) throw invalid('a status list credential');
      return json;
    },
  };
}
