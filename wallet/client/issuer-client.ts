/**
 * `IssuerClient`: the issuer's HTTP API (docs/api.md) as typed calls, for agents (onboarding),
 * services (verification) and operators (tokens, credentials, status lists, DIDs, audit).
 * fetch-based and isomorphic. How each exchange is made (deadline, size cap, no redirects,
 * retries) is in transport.ts; this file says WHICH calls may be retried:
 *
 * Retried on network errors, timeouts, 5xx and 429 (idempotent):
 * - every GET (`health`, `getCredential`, `listEnrollmentTokens`, `listAgents`, `getAgent`,
 *   `getStatusListCredential`, `resolveDid`, `listDids`, `audit`, `verifyAuditChain`,
 *   `sessionPublicKey`);
 * - `revoke`: its end state is final, so repeating it cannot do more. A retry whose first attempt
 *   did land meets 409 CREDENTIAL_ALREADY_REVOKED; `revoke` answers that with the credential as it
 *   now is (`alreadyRevoked: true`), whoever revoked it;
 * - `requestVp`: each call signs a fresh presentation and changes nothing else (one more audit
 *   record), so a repeat is harmless.
 * Never retried (not idempotent):
 * - `onboard` (step 1 opens a challenge, step 2 consumes the single-use token and challenge);
 * - `verify` (the issuer's replay cache accepts each vpId and challenge once: a repeat of a
 *   request that landed would be refused as REPLAYED);
 * - everything that creates or changes something: `mintEnrollmentToken`, `issueCredential`, `delegate`, `renew`,
 *   `suspend`, `reinstate`, `createStatusList`, `createDid`, `addService`, `removeService`,
 *   `deactivateDid`.
 *
 * Errors: the issuer's refusals are `IssuerApiError {status, code, message, details?}` with the
 * API's code; `verify` returns denials (`{valid: false, reason, …}`) as values, because a denial
 * is an answer, not a failure. No secret (admin key, enrollment token, challenge) ever appears in
 * an error message, its details or an event.
 */
import type { AgentClientSecret, AgentDetail, AgentInfo, DelegateRequest, PresentRequest } from '../contract/agents.ts';
import type { AuditChainVerdict, AuditRecord } from '../contract/audit.ts';
import type {
  CredentialState,
  CredentialView,
  IssueCredentialRequest,
  RenewedCredential,
  StatusChangeView,
} from '../contract/credentials.ts';
import type { CreateDidInput, DidResolution, HostedDid, HostedDidKind, ServiceInput } from '../contract/dids.ts';
import type {
  CompleteOnboardingRequest,
  Enrolled,
  EnrollmentToken,
  EnrollmentTokenInfo,
  MintEnrollmentTokenRequest,
} from '../contract/enrollment.ts';
import type { CreateStatusListRequest, StatusListInfo } from '../contract/status-lists.ts';
import type { VpAccepted, VpDenied, VpVerdict, VpVerifyRequest } from '../contract/vp-verify.ts';
import { createProof } from '../crypto/data-integrity.ts';
import type { JsonObject, JsonValue } from '../crypto/json-value.ts';
import type { Ed25519PublicJwk } from '../crypto/jwt.ts';
import type { SigningIdentity } from '../vc/identity.ts';
import type { VerifiablePresentation } from '../vc/types.ts';
import { invalid, isAgentCredentialOf, isEd25519PublicJwk, isObject, isPresentationBy } from './answers.ts';
import { IssuerClientError, isIssuerApiError } from './errors.ts';
import { callEndpoint, type CallOptions } from './call.ts';
import { createTransport, type Transport, type TransportOptions } from './transport.ts';
import type { EndpointInput, EndpointOutput } from '../contract/endpoint.ts';
import { ROUTES, type RouteName, type Routes } from '../contract/routes.ts';

export type { CallOptions };

// The wire types are the contract's (wallet/contract), re-exported under the names this module
// has always exported.
export type {
  AgentClientSecret,
  AgentDetail,
  AgentInfo,
  AuditChainVerdict,
  AuditRecord,
  CreateDidInput,
  CredentialState,
  CredentialView,
  DidResolution,
  EnrollmentToken,
  EnrollmentTokenInfo,
  HostedDid,
  ServiceInput,
  StatusChangeView,
  StatusListInfo,
  VpAccepted,
  VpDenied,
  VpVerdict,
};

export type IssuerClientOptions = TransportOptions;

/** Anything that holds a self-custody key and keeps credentials: a `Wallet`. */
export interface OnboardingHolder {
  readonly identity: SigningIdentity;
  addCredential(credential: unknown): Promise<unknown>;
}

export type OnboardOptions =
  { custody: 'self'; wallet: OnboardingHolder; signal?: AbortSignal } | { custody: 'server'; signal?: AbortSignal };

/** docs/api.md `POST /v1/onboard/verify`: the agent and its AgentCredential. */
export type OnboardResult = Enrolled;

export interface VerifyOptions {
  /** The calling service's own name: the proof's domain must equal or cover it (docs/api.md: "Send it"). */
  target: string;
  /** The nonce the service handed out. */
  challenge?: string;
  requiredScopes?: readonly string[];
  signal?: AbortSignal;
}

export interface RequestVpOptions {
  /** The verifier's service name (the proof's domain). */
  target: string;
  challenge?: string;
  credentialId?: string;
  lifetimeSeconds?: number;
  signal?: AbortSignal;
}

export interface ServerDelegationOptions {
  /** The delegatee's DID. */
  to: string;
  scopes: readonly string[];
  lifetimeSeconds: number;
  domains?: readonly string[];
  delegationDepth?: number;
  signal?: AbortSignal;
}

/** docs/api.md `POST /v1/vcs`: an AgentCredential issued directly to a DID. */
export type IssueCredentialInput = IssueCredentialRequest;

/** A page of a listing: where the previous one stopped, and how many to return. */
export interface PageQuery {
  cursor?: string;
  limit?: number;
  signal?: AbortSignal;
}

/** `POST /v1/enrollment-tokens`'s body, its lists read-only. */
export type MintTokenInput = Omit<MintEnrollmentTokenRequest, 'requestedScopes' | 'requestedDomains'> & {
  requestedScopes: readonly string[];
  requestedDomains: readonly string[];
};

/** `POST /v1/status-list`'s body; any purpose string (the issuer refuses one it does not keep). */
export type StatusListInput = Omit<CreateStatusListRequest, 'purpose'> & { purpose: string };

export interface AuditQuery {
  agent?: string;
  event?: string;
  from?: Date | string;
  to?: Date | string;
  cursor?: string;
  limit?: number;
  /** 'desc': newest first, each page older than the last (the tail without reading the whole log). Default 'asc'. */
  order?: 'asc' | 'desc';
  signal?: AbortSignal;
}

function isoTime(value: Date | string | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value;
}

/** Drops undefined members (the API's strict schemas refuse explicit nulls). */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export class IssuerClient {
  readonly #transport: Transport;

  constructor(options: IssuerClientOptions) {
    this.#transport = createTransport(options);
  }

  /** The normalized base URL (no trailing slash). */
  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /**
   * Any endpoint of the route table by name (wallet/contract/routes.ts), typed from its entry:
   * `client.call('getStatusList', { params: { listId } })`. The methods below are this call plus
   * what a step needs beyond one exchange (signing, idempotent outcomes, denials as values).
   */
  call<N extends RouteName>(
    name: N,
    input: EndpointInput<Routes[N]>,
    options: CallOptions = {},
  ): Promise<EndpointOutput<Routes[N]>> {
    return callEndpoint(this.#transport, ROUTES[name], input, options);
  }

  /** `GET /v1/health`: `{ok, issuer}` (the issuer's DID). */
  async health(options: CallOptions = {}): Promise<{ ok: boolean; issuer: string }> {
    const { ok, issuer } = await this.call('health', {}, options);
    return { ok, issuer };
  }

  /**
   * Both onboarding steps in one call (docs/api.md §Enrollment). Self custody: the wallet's DID
   * is enrolled; the issuer's challenge is answered with a DID-Auth presentation signed by the
   * wallet's key, and the credential is stored in the wallet. Server custody: the issuer creates
   * the key and the DID; the challenge is echoed. The token is consumed by step 2.
   */
  async onboard(token: string, options: OnboardOptions): Promise<OnboardResult> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 256)
      throw new IssuerClientError('CONFIG_INVALID', 'the enrollment token must be a string of 1 to 256 characters');
    const holder = options.custody === 'self' ? options.wallet.identity : undefined;
    const started = await this.call(
      'startOnboarding',
      { body: { token, custody: options.custody, ...(holder ? { did: holder.did } : {}) } },
      { secrets: [token], signal: options.signal },
    );
    const challenge = started.challenge;
    let answer: CompleteOnboardingRequest;
    if (holder) {
      // The DID-Auth presentation the issuer expects (docs/api.md §POST /v1/onboard/verify):
      // proofPurpose authentication, the issuer's challenge, domain = the issuer's DID.
      const proof = await createProof(
        { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], holder: holder.did },
        {
          signer: holder.signer,
          verificationMethod: holder.verificationMethod,
          proofPurpose: 'authentication',
          challenge,
          domain: started.domain,
        },
      );
      answer = { challengeId: started.challengeId, proof };
    } else {
      answer = { challengeId: started.challengeId, challenge };
    }
    const done = await this.call(
      'completeOnboarding',
      { body: answer },
      { secrets: [token, challenge], signal: options.signal },
    );
    const credential = done.verifiableCredential;
    if (!isAgentCredentialOf(credential, done.agentDid)) throw invalid('an enrollment result');
    if (holder && done.agentDid !== holder.did) throw invalid(`an enrollment of ${holder.did}`);
    const result: OnboardResult = {
      agentDid: done.agentDid,
      vcId: done.vcId,
      custody: options.custody,
      verifiableCredential: credential,
    };
    if (options.custody === 'self') await options.wallet.addCredential(result.verifiableCredential);
    return result;
  }

  /**
   * `POST /v1/vp/verify` WITHOUT the session flag: the issuer judges `presentation` for the
   * service named `target`. Denials (403, and 400 MALFORMED for an unreadable presentation) are
   * returned as `{valid: false, reason, …}`. For a session token (`session: true`), call the
   * endpoint directly and check the token with `verifySessionToken` (docs/wallet.md).
   */
  async verify(presentation: unknown, options: VerifyOptions): Promise<VpVerdict> {
    const request = defined({
      presentation: presentation as JsonValue,
      expectedTarget: options.target,
      challenge: options.challenge,
      requiredScopes: options.requiredScopes === undefined ? undefined : [...options.requiredScopes],
    }) as VpVerifyRequest;
    let body: VpVerdict;
    try {
      body = await this.call('verifyPresentation', { body: request }, { signal: options.signal });
    } catch (error) {
      if (isIssuerApiError(error, 'MALFORMED') && error.status === 400) {
        const failedCheck =
          isObject(error.details) && typeof error.details.failedCheck === 'string'
            ? error.details.failedCheck
            : 'presentation';
        return { valid: false, reason: 'MALFORMED', message: error.message, failedCheck };
      }
      throw error;
    }
    if (body.valid) {
      const { agentDid, privilegeScopes, effectiveScopes, vpId, target } = body;
      return { valid: true, agentDid, privilegeScopes, effectiveScopes, vpId, target };
    }
    const { reason, message, failedCheck, vpId } = body;
    return { valid: false, reason, message, failedCheck, ...(vpId === undefined ? {} : { vpId }) };
  }

  /** Server custody: a presentation the issuer signs for `agentDid` (admin). */
  async requestVp(agentDid: string, options: RequestVpOptions): Promise<VerifiablePresentation> {
    const body = defined({
      targetService: options.target,
      challenge: options.challenge,
      credentialId: options.credentialId,
      lifetimeSeconds: options.lifetimeSeconds,
    }) as PresentRequest;
    const vp = await this.call('requestVp', { params: { did: agentDid }, body }, { signal: options.signal });
    if (!isPresentationBy(vp, agentDid)) throw invalid(`a presentation by ${agentDid}`);
    return vp;
  }

  /** Server custody: a DelegatedAgentCredential the issuer signs for the delegator `agentDid` (admin). */
  async delegate(agentDid: string, options: ServerDelegationOptions): Promise<CredentialView> {
    const body = defined({
      delegateeDid: options.to,
      scopes: [...options.scopes],
      lifetimeSeconds: options.lifetimeSeconds,
      domains: options.domains === undefined ? undefined : [...options.domains],
      delegationDepth: options.delegationDepth,
    }) as DelegateRequest;
    return this.call('delegate', { params: { did: agentDid }, body }, { signal: options.signal });
  }

  /** An enrollment token (admin; open without the key only when the issuer allows open enrollment). */
  async mintEnrollmentToken(input: MintTokenInput, options: CallOptions = {}): Promise<EnrollmentToken> {
    const body = defined({
      ...input,
      requestedScopes: [...input.requestedScopes],
      requestedDomains: [...input.requestedDomains],
    }) as MintEnrollmentTokenRequest;
    return this.call('mintEnrollmentToken', { body }, options);
  }

  /** `GET /v1/vcs/{vcId}` (public). */
  getCredential(vcId: string, options: CallOptions = {}): Promise<CredentialView> {
    return this.call('getCredential', { params: { vcId } }, options);
  }

  /** `POST /v1/vcs`: an AgentCredential issued directly to `subjectDid` (admin; not retried). */
  issueCredential(input: IssueCredentialInput, options: CallOptions = {}): Promise<CredentialView> {
    return this.call('issueCredential', { body: defined({ ...input }) as IssueCredentialRequest }, options);
  }

  /** `GET /v1/enrollment-tokens` (admin): token records, newest first, never the token values. */
  listEnrollmentTokens(
    query: PageQuery & { state?: EnrollmentTokenInfo['state'] } = {},
  ): Promise<{ tokens: EnrollmentTokenInfo[]; nextCursor?: string }> {
    const { state, cursor, limit, signal } = query;
    return this.call('listEnrollmentTokens', { query: { state, cursor, limit } }, { signal });
  }

  /** `GET /v1/agents` (admin). */
  listAgents(query: PageQuery = {}): Promise<{ agents: AgentInfo[]; nextCursor?: string }> {
    const { cursor, limit, signal } = query;
    return this.call('listAgents', { query: { cursor, limit } }, { signal });
  }

  /**
   * `POST /v1/agents/{did}/client-secret` (admin): issues the server-custody agent its own client
   * secret, or rotates it. The answer is the only copy; give it to the agent's process as
   * `new IssuerClient({ baseUrl, clientSecret })`.
   */
  async issueAgentClientSecret(did: string, options: CallOptions = {}): Promise<AgentClientSecret> {
    const secret = await this.call('issueAgentClientSecret', { params: { did } }, options);
    if (secret.clientId !== did) throw invalid(`a client secret for ${did}`);
    return secret;
  }

  /** `DELETE /v1/agents/{did}/client-secret` (admin): the secret stops working at once. */
  async revokeAgentClientSecret(did: string, options: CallOptions = {}): Promise<void> {
    await this.call('revokeAgentClientSecret', { params: { did } }, options);
  }

  /** `GET /v1/agents/{did}` (admin): the agent, its current credential and its credential history. */
  async getAgent(did: string, options: CallOptions = {}): Promise<AgentDetail> {
    const agent = await this.call('getAgent', { params: { did } }, options);
    if (agent.did !== did) throw invalid(`the agent ${did}`);
    return agent;
  }

  /**
   * `GET /v1/status-list/{listId}` (public): the signed BitstringStatusListCredential as served
   * (`application/vc`), NOT verified — to check credentials against it, use
   * `createStatusListClient`, which verifies its signature and issuer.
   */
  async getStatusListCredential(listId: string, options: CallOptions = {}): Promise<JsonObject> {
    return this.call('getStatusList', { params: { listId } }, options);
  }

  /**
   * Revokes a credential (admin). Idempotent: a credential that is already revoked resolves with
   * its current view and `alreadyRevoked: true` (see the module note).
   */
  async revoke(
    vcId: string,
    options: { reason?: string; signal?: AbortSignal } = {},
  ): Promise<StatusChangeView & { alreadyRevoked?: true }> {
    try {
      return await this.#statusChange('revokeCredential', vcId, options);
    } catch (error) {
      if (!isIssuerApiError(error, 'CREDENTIAL_ALREADY_REVOKED')) throw error;
      const current = await this.getCredential(vcId, { signal: options.signal });
      if (current.state !== 'revoked') throw error;
      return { ...current, changed: [], alreadyRevoked: true };
    }
  }

  /** Suspends a credential (admin; not retried). */
  suspend(vcId: string, options: { reason?: string; signal?: AbortSignal } = {}): Promise<StatusChangeView> {
    return this.#statusChange('suspendCredential', vcId, options);
  }

  /** Lifts a suspension (admin; not retried). */
  reinstate(vcId: string, options: { reason?: string; signal?: AbortSignal } = {}): Promise<StatusChangeView> {
    return this.#statusChange('reinstateCredential', vcId, options);
  }

  #statusChange(
    action: 'revokeCredential' | 'suspendCredential' | 'reinstateCredential',
    vcId: string,
    options: { reason?: string; signal?: AbortSignal },
  ): Promise<StatusChangeView> {
    return this.call(
      action,
      { params: { vcId }, body: defined({ reason: options.reason }) },
      { signal: options.signal },
    );
  }

  /** A new credential with the same subject and limits; the old one becomes superseded (admin). */
  renew(vcId: string, options: { validitySeconds?: number; signal?: AbortSignal } = {}): Promise<RenewedCredential> {
    const body = defined({ validitySeconds: options.validitySeconds });
    return this.call('renewCredential', { params: { vcId }, body }, { signal: options.signal });
  }

  /** Creates and publishes a status list (admin). */
  async createStatusList(input: StatusListInput, options: CallOptions = {}): Promise<StatusListInfo> {
    // Any purpose string is sent: the issuer answers one it does not keep with VALIDATION_FAILED.
    return this.call('createStatusList', { body: defined({ ...input }) as CreateStatusListRequest }, options);
  }

  /** `POST /v1/dids` (admin): a new DID with a server key, a hosted document for a caller key, or a registered did:key. */
  createDid(input: CreateDidInput, options: CallOptions = {}): Promise<HostedDid> {
    return this.call('createDid', { body: input }, options);
  }

  /** `GET /v1/dids/{did}` (public): the resolution result of a DID hosted here or any did:key. */
  resolveDid(did: string, options: CallOptions = {}): Promise<DidResolution> {
    return this.call('resolveDid', { params: { did } }, options);
  }

  /** `GET /v1/dids` (admin). */
  listDids(
    query: { kind?: HostedDidKind; cursor?: string; limit?: number; signal?: AbortSignal } = {},
  ): Promise<{ dids: HostedDid[]; nextCursor?: string }> {
    const { signal, ...page } = query;
    return this.call('listDids', { query: page }, { signal });
  }

  /** Adds a service (DID Core §5.4) to a hosted did:web document (admin). */
  addService(did: string, service: ServiceInput, options: CallOptions = {}): Promise<HostedDid> {
    return this.call('addService', { params: { did }, body: defined({ ...service }) as ServiceInput }, options);
  }

  /** Removes a service by its id (the fragment) (admin). */
  removeService(did: string, serviceId: string, options: CallOptions = {}): Promise<HostedDid> {
    const endpointId = serviceId.includes('#') ? serviceId.slice(serviceId.indexOf('#') + 1) : serviceId;
    return this.call('removeService', { params: { did, endpointId } }, options);
  }

  /** Deactivates a hosted DID (DID Core §7.1.3) (admin). */
  deactivateDid(did: string, options: { reason?: string; signal?: AbortSignal } = {}): Promise<HostedDid> {
    return this.call('deactivateDid', { params: { did }, body: defined({ reason: options.reason }) }, options);
  }

  /** One page of the audit log (admin). */
  audit(query: AuditQuery = {}): Promise<{ records: AuditRecord[]; nextCursor?: string }> {
    const { agent, event, from, to, order, cursor, limit, signal } = query;
    // In this order on the wire (what logs and proxies see stays the same).
    const page = { agent, event, from: isoTime(from), to: isoTime(to), order, cursor, limit };
    return this.call('listAudit', { query: page }, { signal });
  }

  /** Re-checks the audit hash chain (admin). */
  async verifyAuditChain(options: CallOptions = {}): Promise<AuditChainVerdict> {
    const body = await this.call('verifyAuditChain', {}, options);
    if (body.intact && body.headHash !== undefined) return { intact: true, count: body.count, headHash: body.headHash };
    if (!body.intact && body.brokenAt !== undefined)
      return { intact: false, brokenAt: body.brokenAt, count: body.count };
    throw invalid('an audit verdict');
  }

  /** `GET /v1/sessions/public-key`: the session-token key (public). Verify tokens with `verifySessionToken`. */
  async sessionPublicKey(options: CallOptions = {}): Promise<Ed25519PublicJwk> {
    const body = await this.call('sessionPublicKey', {}, options);
    if (!isEd25519PublicJwk(body)) throw invalid('a JWK');
    return body;
  }
}
