/**
 * Client-secret authentication at the token endpoint (RFC 6749 §2.3.1) for server-custody
 * agents holding their own client secret (api.md §Agent client secrets): `client_secret_basic`
 * (HTTP Basic) or `client_secret_post` (form parameters), never both.
 */
import type { IssuerDeps } from '../../deps.ts';
import { isAgentSecret } from '../agent-secrets.ts';
import { refuse, refuseClaimed } from './errors.ts';

export interface ClientSecretCredentials {
  clientId: string;
  secret: string;
  method: 'client_secret_basic' | 'client_secret_post';
}

function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * RFC 6749 §2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(secret))`. Some clients
 * (the MCP SDK 1.32) do not URL-encode the id, and a DID has colons: the secret has none, so
 * the split is at the last colon.
 */
export function basicCredentials(header: string | undefined): ClientSecretCredentials | undefined {
  const match = header === undefined ? null : /^Basic +([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.lastIndexOf(':');
  const secret = colon < 1 ? undefined : formDecode(decoded.slice(colon + 1));
  if (secret === undefined)
    return refuse('invalid_client', 'CLIENT_SECRET_INVALID', 'the Basic credentials are not client_id:client_secret');
  return { clientId: decoded.slice(0, colon), secret, method: 'client_secret_basic' };
}

/** Authenticates the agent the credentials name; returns its DID. */
export async function authenticateBySecret(
  deps: Pick<IssuerDeps, 'stores'>,
  credentials: ClientSecretCredentials,
): Promise<string> {
  const raw = credentials.clientId;
  const decoded = formDecode(raw);
  // A raw did:web may itself contain "%3A": try the id as sent, then URL-decoded (both always).
  const asSent = await isAgentSecret(deps, raw, credentials.secret);
  const asDecoded =
    decoded !== undefined && decoded !== raw && (await isAgentSecret(deps, decoded, credentials.secret));
  if (asSent) return raw;
  if (asDecoded) return decoded;
  return refuseClaimed(
    'invalid_client',
    'CLIENT_SECRET_INVALID',
    `client authentication failed (${credentials.method}): not this agent's current client secret`,
    raw,
  );
}
