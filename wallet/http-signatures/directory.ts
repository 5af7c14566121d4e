/**
 * Key discovery for Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol, "Key Distribution and
 * Discovery"): the HTTP Message Signatures Directory — a JWK Set served at
 * `/.well-known/http-message-signatures-directory` — and the Signature Agent Card, one metadata
 * document per agent in the OAuth client-metadata shape (RFC 7591 §2, as OAuth Client ID
 * Metadata Documents use it; draft-meunier-webbotauth-registry), which a `Signature-Agent`
 * member of `type=cimd` names.
 *
 * The issuer serves both for the agents it hosts (issuer/services/key-directory.ts); an agent
 * that holds its own key builds the same documents here and serves them wherever it is hosted.
 * The wire format is docs/key-directory.md.
 */
import type { Signer } from '../crypto/ed25519.ts';
import { ed25519PublicJwk, type Ed25519PublicJwk } from '../crypto/jwt.ts';
import { MAX_SIGNATURE_LIFETIME_SECONDS } from './base.ts';
import { requestSigner, signResponse } from './sign.ts';

/** The well-known path of the directory (draft-ietf-webbotauth-httpsig-protocol, IANA Considerations). */
export const SIGNATURE_DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';

/** The media type the directory MUST be served with at the well-known path. */
export const SIGNATURE_DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

/** The `tag` of each directory response signature (the draft's "Possession Proof on the Directory Response"). */
export const DIRECTORY_SIGNATURE_TAG = 'http-message-signatures-directory';

/** RFC 7591 §4.1 grant types a Mandate agent uses at its issuer's token endpoint (docs/oauth.md). */
const AGENT_GRANT_TYPES = ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'] as const;

/** A JWK Set (RFC 7517 §5) of Ed25519 public keys, each `kid` its RFC 7638 thumbprint. */
export interface SignatureDirectory {
  keys: Ed25519PublicJwk[];
}

/**
 * The directory document of `publicKeys`, in their order, a key listed once. Each `kid` is the
 * key's RFC 7638 thumbprint, the value a Web Bot Auth `keyid` names, as the draft requires of a
 * `kid` served at the well-known URI.
 */
export async function signatureDirectoryDocument(publicKeys: readonly Uint8Array[]): Promise<SignatureDirectory> {
  const keys: Ed25519PublicJwk[] = [];
  const seen = new Set<string>();
  for (const publicKey of publicKeys) {
    const jwk = await ed25519PublicJwk(publicKey);
    if (seen.has(jwk.kid as string)) continue;
    seen.add(jwk.kid as string);
    keys.push(jwk);
  }
  return { keys };
}

export interface SignDirectoryOptions {
  /**
   * The JWK Set to serve (default: `signatureDirectoryDocument` of the signers' keys). Each
   * signer's key should be in it: a verifier ignores a listed key without its signature, and a
   * signature by a key it does not list proves nothing.
   */
  document?: SignatureDirectory;
  /** Lifetime of the signatures, seconds (default and most: 300, MAX_SIGNATURE_LIFETIME_SECONDS). */
  expiresIn?: number;
  /** The clock, ms since the epoch (default `Date.now()`): `created` is its second. */
  now?: number;
}

/** A signed directory answer: the exact body bytes (as text) and the headers to send with them. */
export interface SignedDirectory {
  body: string;
  /** `content-type`, `content-digest`, `signature-input`, `signature` (lowercase names). */
  headers: Record<string, string>;
}

/**
 * The directory answer to `request` (the request that fetches it, or its URL), signed once per
 * key as the draft's possession proof asks (draft-ietf-webbotauth-httpsig-protocol, "Validating
 * the Domain Binding"): each signature, labelled `binding0`, `binding1`, …, covers
 * `content-digest` (RFC 9530, sha-256 of the body) and `"@authority";req` (RFC 9421 §2.4: the
 * authority the verifier asked, so the set cannot be served again under another), with
 * `created`, `expires`, `keyid` (the key's RFC 7638 thumbprint), `alg="ed25519"` and
 * `tag="http-message-signatures-directory"`.
 *
 * @example
 * const { body, headers } = await buildSignatureDirectory([await store.signer('agent')], request);
 * return new Response(body, { headers });
 */
export async function buildSignatureDirectory(
  signers: readonly Signer[],
  request: Request | string,
  options: SignDirectoryOptions = {},
): Promise<SignedDirectory> {
  const document = options.document ?? (await signatureDirectoryDocument(signers.map((s) => s.publicKey)));
  const body = JSON.stringify(document);
  const fetched = typeof request === 'string' ? new Request(request) : request;
  let response = new Response(body, { headers: { 'content-type': SIGNATURE_DIRECTORY_MEDIA_TYPE } });
  for (const [index, signer] of signers.entries()) {
    response = await signResponse(response, fetched, requestSigner(signer), {
      label: `binding${index}`,
      components: ['"@authority";req'],
      tag: DIRECTORY_SIGNATURE_TAG,
      nonce: false,
      expiresIn: options.expiresIn ?? MAX_SIGNATURE_LIFETIME_SECONDS,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { body, headers };
}

/** Why an agent's card lists no key, or `active` when it lists them. */
export type AgentKeyStatus = 'active' | 'deactivated' | 'no-credential' | 'revoked' | 'suspended' | 'expired';

export interface SignatureAgentCardInput {
  /** The URL the card is served at: its `client_id` (CIMD: the URL, compared as a string). */
  url: string;
  /** The agent's DID; `publicKeys` are the Ed25519 keys of its DID document's `authentication`. */
  did: string;
  /** `client_name`: how the agent is shown (default: its DID). */
  name?: string;
  publicKeys: readonly Uint8Array[];
  /** RFC 7591 `contacts`: mailto: or https: URIs of whoever answers for the agent. */
  contacts?: readonly string[];
  /**
   * `private_key_jwt` for an agent that signs its own client assertions (self custody), `none`
   * for one whose key is held by its issuer (it authenticates with a client secret there, which
   * a metadata document must not name: CIMD forbids shared-secret methods).
   */
  tokenEndpointAuthMethod?: 'private_key_jwt' | 'none';
  /** Not `active`: the card is served without keys, and says why (default `active`). */
  status?: AgentKeyStatus;
}

/** A Signature Agent Card: RFC 7591 client metadata plus the agent's DID (docs/key-directory.md). */
export interface SignatureAgentCard {
  client_id: string;
  client_name: string;
  did: string;
  jwks: SignatureDirectory;
  redirect_uris: string[];
  grant_types: (typeof AGENT_GRANT_TYPES)[number][];
  response_types: string[];
  token_endpoint_auth_method: 'private_key_jwt' | 'none';
  contacts?: string[];
  agent_status: AgentKeyStatus;
}

/**
 * The agent's Signature Agent Card. Its keys are inline (`jwks`), never a `jwks_uri` naming a
 * shared directory: a verifier attributes a request to the (card URL, key) pair, so a card must
 * list exactly its agent's keys. `redirect_uris` is empty (an agent uses no redirect flow) and
 * present because MCP's Client ID Metadata Documents require the member.
 */
export async function buildSignatureAgentCard(input: SignatureAgentCardInput): Promise<SignatureAgentCard> {
  const status = input.status ?? 'active';
  return {
    client_id: input.url,
    client_name: input.name ?? input.did,
    did: input.did,
    jwks: await signatureDirectoryDocument(status === 'active' ? input.publicKeys : []),
    redirect_uris: [],
    grant_types: [...AGENT_GRANT_TYPES],
    response_types: [],
    token_endpoint_auth_method: input.tokenEndpointAuthMethod ?? 'private_key_jwt',
    ...(input.contacts === undefined || input.contacts.length === 0 ? {} : { contacts: [...input.contacts] }),
    agent_status: status,
  };
}
