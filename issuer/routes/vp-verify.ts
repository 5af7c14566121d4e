/**
 * `POST /v1/vp/verify` (services/vp-verify.ts), RFC 7662 introspection and the session-token
 * keys (wallet/contract/vp-verify.ts). Verification is public: a presentation is its own
 * authentication, and the answer reveals nothing the presenter does not already know.
 */
import type { vpVerifyEndpoints } from '../../wallet/contract/vp-verify.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import { introspectSessionToken } from '../services/introspection.ts';
import type { SessionTokenIssuer } from '../services/session-tokens.ts';
import { createVpVerifier } from '../services/vp-verify.ts';

export function vpVerifyHandlers(
  ctx: IssuerContext,
  sessions: SessionTokenIssuer,
): HandlersOf<typeof vpVerifyEndpoints> {
  const verifier = createVpVerifier(ctx, sessions);
  return {
    verifyPresentation: async ({ body }, c) => {
      const verdict = await verifier.verify(body, c.get('actor'));
      return verdict.valid ? verdict : c.json(verdict, 403);
    },
    introspect: async ({ body }, c) => {
      c.header('cache-control', 'no-store'); // RFC 7662 §2.2 answers about a live credential
      return introspectSessionToken(ctx, sessions, body.token);
    },
    sessionPublicKey: async (_, c) => {
      c.header('cache-control', 'public, max-age=300');
      return sessions.publicJwk();
    },
    jwks: async (_, c) => {
      c.header('cache-control', 'public, max-age=300');
      return { keys: [await sessions.publicJwk()] };
    },
  };
}
