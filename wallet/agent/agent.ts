/**
 * `createAgent`: an agent as one object — its DID and key (from a key store: in a browser a
 * non-extractable WebCrypto key), its credential chain (its own AgentCredential, or a delegated
 * chain leaf first), its tokens, and `agent.fetch`, which answers the challenges of the services
 * it calls (fetch.ts). docs/agents.md.
 *
 * The pieces an MCP SDK `OAuthClientProvider` needs are public too (`agent.token`,
 * `agent.dpopProof`), so a provider can wrap an agent without a second OAuth client.
 */
import { ed25519SigningKey, type JwsSigningKey } from '../crypto/jws-key.ts';
import { identityRequestSigner } from '../http-signatures/sign.ts';
import type { KeyStore } from '../keystore/types.ts';
import type { FetchLike } from '../net/http.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { didKeyIdentity, type SigningIdentity } from '../vc/identity.ts';
import type { MandateCredential } from '../vc/types.ts';
import { createAuthorization, type GrantChoice } from './authorization.ts';
import type { ClientAuthMethod } from './client-auth.ts';
import { createDpopSession } from './dpop-session.ts';
import { AgentFetchError } from './errors.ts';
import { createAgentFetch, type AgentFetch } from './fetch.ts';
import { createTokenCache, type AgentToken, type TokenCache } from './token-cache.ts';

export interface CreateAgentOptions {
  /** The store holding the agent's Ed25519 key (`createIndexedDbKeyStore`, `createFileKeyStore`, …). */
  keyStore?: KeyStore;
  /** The key's id in the store (default: the store's only key). */
  keyId?: string;
  /** Instead of a key store: a ready identity (its DID, verification method and signer). */
  identity?: SigningIdentity;
  /** The agent's credential chain: its AgentCredential, or a delegated chain, leaf first. */
  credentials?: readonly MandateCredential[];
  /** The authorization server(s) the agent's owner trusts (its Mandate issuer's base URL). */
  issuer?: string | readonly string[];
  /** OAuth `client_id` (default: the agent's DID). */
  clientId?: string;
  /** A client secret (server-custody agents, other authorization servers); sent only to `issuer`. */
  clientSecret?: string;
  /** The client authentication wanted first, when the server supports it. */
  clientAuth?: ClientAuthMethod;
  /** The private_key_jwt key, when not the agent's own (an ES256 key: `es256SigningKey`). */
  clientKey?: { key: JwsSigningKey; kid?: string };
  /** DPoP (RFC 9449): on with the agent's key (default), another key, or off (Bearer tokens). */
  dpop?: boolean | JwsSigningKey;
  /** `auto` (default): token exchange for a delegated chain, client_credentials otherwise. */
  grant?: GrantChoice;
  /** `always`: every request RFC 9421-signed with the chain; default only when a service asks. */
  sign?: 'always' | 'when-asked';
  /** Presentation targets the agent may sign for, per origin, beyond each request's own host. */
  targets?: Readonly<Record<string, string>>;
  /** The fetch requests go through (default the global fetch). */
  fetch?: (input: Request | string, init?: RequestInit) => Promise<Response>;
  /** For URLs services name (metadata, endpoints): http to loopback, private networks (default: neither). */
  urlPolicy?: UrlPolicy;
  now?: () => number;
}

export interface Agent {
  readonly did: string;
  readonly verificationMethod: string;
  readonly identity: SigningIdentity;
  readonly credentials: readonly MandateCredential[];
  /** The DPoP key (undefined when DPoP is off); its `thumbprint` is every bound token's `cnf.jkt`. */
  readonly dpopKey: JwsSigningKey | undefined;
  readonly tokens: TokenCache;
  /** A drop-in `fetch` that answers challenges (docs/agents.md §What it answers). */
  readonly fetch: AgentFetch;
  /** A token for the resource at `url` (discovered from its metadata), cached as `fetch` caches. */
  token(url: string, options?: { scopes?: readonly string[]; resourceMetadata?: string }): Promise<AgentToken>;
  /** A DPoP proof by the agent's DPoP key for `method url`, bound to `accessToken` when given. */
  dpopProof(method: string, url: string, accessToken?: string): Promise<string>;
}

function optionsInvalid(message: string): AgentFetchError {
  return new AgentFetchError('AGENT_OPTIONS_INVALID', message);
}

async function identityOf(options: CreateAgentOptions): Promise<SigningIdentity> {
  if (options.identity !== undefined) return options.identity;
  const store = options.keyStore;
  if (store === undefined) throw optionsInvalid('createAgent needs a keyStore (or an identity)');
  let id = options.keyId;
  if (id === undefined) {
    const keys = await store.list();
    if (keys.length !== 1) throw optionsInvalid(`the key store holds ${keys.length} keys: name one with keyId`);
    id = keys[0]!.id;
  }
  if ((await store.get(id)) === undefined) throw optionsInvalid(`the key store holds no key "${id}"`);
  return didKeyIdentity(await store.signer(id));
}

/** The scopes the leaf credential holds, the most any token or presentation of the agent can carry. */
function heldScopes(credentials: readonly MandateCredential[]): readonly string[] | undefined {
  const subject = (credentials[0] as { credentialSubject?: { privilegeScopes?: unknown } } | undefined)
    ?.credentialSubject;
  const scopes = subject?.privilegeScopes;
  return Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') ? scopes : undefined;
}

export async function createAgent(options: CreateAgentOptions): Promise<Agent> {
  const identity = await identityOf(options);
  const credentials = Object.freeze([...(options.credentials ?? [])]);
  if (options.sign === 'always' && credentials.length === 0)
    throw optionsInvalid('sign: "always" needs the credentials the signatures name');
  const now = options.now ?? Date.now;
  const base = options.fetch ?? ((input: Request | string, init?: RequestInit) => fetch(input, init));
  const send = (input: Request | string, init?: RequestInit) => base(input, init);
  const fetchLike: FetchLike = (url, init) => base(url, init);
  const ownKey = ed25519SigningKey(identity.signer);
  const dpopKey =
    options.dpop === false ? undefined : options.dpop === undefined || options.dpop === true ? ownKey : options.dpop;
  const dpop = dpopKey === undefined ? undefined : createDpopSession(dpopKey, now);
  const issuers =
    options.issuer === undefined ? [] : typeof options.issuer === 'string' ? [options.issuer] : [...options.issuer];
  const tokens = createTokenCache(now);
  const authorization = createAuthorization({
    identity,
    credentials,
    client: {
      clientId: options.clientId ?? identity.did,
      assertionKey: options.clientKey ?? { key: ownKey, kid: identity.verificationMethod },
      ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }),
      secretIssuers: issuers,
      ...(options.clientAuth === undefined ? {} : { preferred: options.clientAuth }),
    },
    grant: options.grant ?? 'auto',
    issuers,
    dpop,
    discovery: { fetch: fetchLike, urlPolicy: options.urlPolicy ?? {} },
    send,
    cache: tokens,
    now,
  });
  const agentFetch = createAgentFetch({
    authorization,
    dpop,
    presentation: { identity, credentials, targets: options.targets ?? {}, fetch: fetchLike },
    heldScopes: heldScopes(credentials),
    sign: options.sign ?? 'when-asked',
    signer: identityRequestSigner(identity),
    credentials,
    send,
    holding: new Set(),
  });
  return Object.freeze({
    did: identity.did,
    verificationMethod: identity.verificationMethod,
    identity,
    credentials,
    dpopKey,
    tokens,
    fetch: agentFetch,
    async token(url: string, tokenOptions: { scopes?: readonly string[]; resourceMetadata?: string } = {}) {
      const route = authorization.routeFor(url) ?? (await authorization.discover(url, tokenOptions.resourceMetadata));
      const token = await authorization.token(route, tokenOptions.scopes ?? route.scopes);
      return token;
    },
    dpopProof(method: string, url: string, accessToken?: string) {
      if (dpop === undefined) return Promise.reject(optionsInvalid('this agent has DPoP turned off'));
      return dpop.proof(method, url, accessToken);
    },
  });
}
