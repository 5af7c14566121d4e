/**
 * How the agent authenticates to a token endpoint (RFC 6749 §2.3), chosen against what the
 * authorization server says it supports (RFC 8414 §2 `token_endpoint_auth_methods_supported`,
 * whose default is `client_secret_basic`):
 * - `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core §9): a client assertion signed by the
 *   agent's key — Ed25519 (`EdDSA`) or ES256 — `iss` = `sub` = the client id, `aud` = the
 *   server's `issuer`, a fresh `jti`, 60 s of life. Safe to show any server: it names its audience.
 * - `client_secret_basic` / `client_secret_post` (RFC 6749 §2.3.1): a secret, sent only to the
 *   authorization servers the agent was configured with — never to one a resource named.
 * - `none`: a token exchange whose presentation, bound to the DPoP key, authenticates the agent
 *   (docs/oauth.md §Binding the presentation to the client).
 */
import { bytesToBase64 } from '../crypto/base64url.ts';
import { utf8ToBytes } from '../crypto/bytes.ts';
import { signCompactJws, type JwsSigningKey } from '../crypto/jws-key.ts';
import type { AuthorizationServer } from './discovery.ts';
import { AgentFetchError } from './errors.ts';

/** RFC 7523 §2.2 */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export type ClientAuthMethod = 'private_key_jwt' | 'client_secret_basic' | 'client_secret_post' | 'none';

/** What the agent can authenticate with. */
export interface ClientCredentials {
  clientId: string;
  /** The private_key_jwt key and its `kid` (a DID URL for a DID agent). */
  assertionKey?: { key: JwsSigningKey; kid?: string };
  clientSecret?: string;
  /** Authorization servers (their `issuer`) a client secret may be sent to. */
  secretIssuers: readonly string[];
  /** The method wanted first, when the server supports it. */
  preferred?: ClientAuthMethod;
}

/** A token request's authentication: form parameters and headers to add. */
export interface ClientAuthParts {
  method: ClientAuthMethod;
  form: Record<string, string>;
  headers: Record<string, string>;
}

/** RFC 6749 §2.3.1: each part form-urlencoded (Appendix B) before Basic (RFC 7617) joins them. */
function basic(clientId: string, secret: string): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${bytesToBase64(utf8ToBytes(`${encode(clientId)}:${encode(secret)}`))}`;
}

function assertionAlgOk(server: AuthorizationServer, key: JwsSigningKey): boolean {
  if (server.authSigningAlgs.length === 0) return true;
  const names = key.alg === 'EdDSA' ? ['EdDSA', 'Ed25519'] : ['ES256'];
  return names.some((name) => server.authSigningAlgs.includes(name));
}

/** The methods usable with `server`, in the agent's order of preference. */
function usable(
  server: AuthorizationServer,
  credentials: ClientCredentials,
  exchangeWithDpop: boolean,
): ClientAuthMethod[] {
  const supported = server.authMethods.length > 0 ? server.authMethods : ['client_secret_basic'];
  const secretOk =
    credentials.clientSecret !== undefined &&
    credentials.secretIssuers.some((issuer) => issuer.replace(/\/$/, '') === server.issuer.replace(/\/$/, ''));
  const key = credentials.assertionKey?.key;
  const order: ClientAuthMethod[] = [];
  if (exchangeWithDpop) order.push('none');
  if (secretOk) order.push('client_secret_basic', 'client_secret_post');
  if (key !== undefined && assertionAlgOk(server, key)) order.push('private_key_jwt');
  const preferred = credentials.preferred;
  if (preferred !== undefined && order.includes(preferred)) order.unshift(preferred);
  return order.filter((method) => supported.includes(method));
}

/**
 * The authentication for one token request to `server` (a fresh assertion each time: its `jti`
 * is accepted once). Throws AGENT_CLIENT_AUTH_UNSUPPORTED when no method fits.
 */
export async function clientAuthentication(
  server: AuthorizationServer,
  credentials: ClientCredentials,
  options: { exchangeWithDpop: boolean; now: number },
): Promise<ClientAuthParts> {
  const method = usable(server, credentials, options.exchangeWithDpop)[0];
  const { clientId, clientSecret = '' } = credentials;
  switch (method) {
    case 'none':
      return { method, form: { client_id: clientId }, headers: {} };
    case 'client_secret_basic':
      return { method, form: {}, headers: { authorization: basic(clientId, clientSecret) } };
    case 'client_secret_post':
      return { method, form: { client_id: clientId, client_secret: clientSecret }, headers: {} };
    case 'private_key_jwt': {
      const { key, kid } = credentials.assertionKey!;
      const iat = Math.floor(options.now / 1000);
      const claims = { iss: clientId, sub: clientId, aud: server.issuer, jti: crypto.randomUUID(), iat, exp: iat + 60 };
      const assertion = await signCompactJws({ typ: 'JWT', ...(kid === undefined ? {} : { kid }) }, claims, key);
      return {
        method,
        form: { client_id: clientId, client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: assertion },
        headers: {},
      };
    }
    default:
      throw new AgentFetchError(
        'AGENT_CLIENT_AUTH_UNSUPPORTED',
        `${server.issuer} supports none of the agent's client authentication methods (it lists ${
          server.authMethods.join(', ') || 'client_secret_basic'
        })`,
      );
  }
}
