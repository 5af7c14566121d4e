/**
 * Operator authentication: `Authorization: Bearer <SERVICE_ADMIN_API_KEY>`, compared in
 * constant time (both sides are hashed first, so neither content nor length leaks through
 * timing). Failure is 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3).
 */
import type { MiddlewareHandler } from 'hono';
import { equalBytes } from '../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import { BEARER_TOKEN_CHARACTERS } from '../config/index.ts';
import type { IssuerEnv } from './env.ts';
import { refuse } from '../refusal.ts';

const REALM = 'mandate-issuer';

export interface AdminAuthOptions {
  adminApiKey: string;
  /** Further keys this route accepts, each with the actor it stands for (SERVICE_INTROSPECTION_KEYS). */
  otherKeys?: ReadonlyArray<{ key: string; actor: string }>;
  /** When it returns true the request passes without a key (SERVICE_OPEN_ENROLLMENT for token minting). */
  openWhen?: () => boolean;
}

const BEARER_HEADER = new RegExp(`^Bearer +(${BEARER_TOKEN_CHARACTERS})\\s*$`, 'i');

/** RFC 6750 §2.1: `Bearer` (case-insensitive scheme), spaces, then the token. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : BEARER_HEADER.exec(header);
  return match?.[1];
}

/**
 * True when an Authorization header is sent without the `Bearer` scheme (a bare key, Basic, …):
 * the caller is told the scheme is missing rather than that its key is wrong (RFC 6750 §3.1
 * `invalid_request`: the request is malformed, whatever the key).
 */
export function bearerSchemeMissing(header: string | undefined): boolean {
  return header !== undefined && !/^Bearer(?: |$)/i.test(header);
}

/** The `WWW-Authenticate` error of a refused header (RFC 6750 §3.1). */
export function bearerError(header: string | undefined): 'invalid_request' | 'invalid_token' {
  return header === undefined || bearerSchemeMissing(header) ? 'invalid_request' : 'invalid_token';
}

/** True when `presented` is the admin key (constant time). */
export function isAdminKey(presented: string | undefined, adminApiKey: string): boolean {
  if (presented === undefined) return false;
  return equalBytes(sha256Utf8(presented), sha256Utf8(adminApiKey));
}

/**
 * Requires the admin key; sets the `actor` variable to `admin`.
 *
 * @example app.openapi(createRoute({ ..., middleware: [adminAuth({ adminApiKey })] }), handler)
 */
export function adminAuth(options: AdminAuthOptions): MiddlewareHandler<IssuerEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const token = bearerToken(header);
    if (isAdminKey(token, options.adminApiKey)) {
      c.set('actor', 'admin');
      return next();
    }
    // Every key is compared, so which one matched does not show in the timing.
    const other = options.otherKeys
      ?.map((k) => (isAdminKey(token, k.key) ? k.actor : undefined))
      .find((actor) => actor !== undefined);
    if (other !== undefined) {
      c.set('actor', other);
      return next();
    }
    if (options.openWhen?.() === true && header === undefined) return next();
    throw refuse(
      'UNAUTHORIZED',
      header === undefined
        ? 'this endpoint requires the admin API key (Authorization: Bearer …)'
        : bearerSchemeMissing(header)
          ? 'the Authorization header lacks the Bearer scheme: send Authorization: Bearer <admin API key>'
          : 'the admin API key is not valid',
      {
        challenge: { scheme: 'Bearer', realm: REALM, error: bearerError(header) },
      },
    );
  };
}
