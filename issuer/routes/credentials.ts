/**
 * Credentials (wallet/contract/credentials.ts): direct issuance and lifecycle (admin), and
 * reading one credential (public: its id is an unguessable urn:uuid, and a credential is shown to
 * every verifier anyway — a self-custody agent fetches its credential here after onboarding).
 */
import type { credentialEndpoints } from '../../wallet/contract/credentials.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import {
  credentialView,
  getCredential,
  issueDirect,
  renewCredential,
  revokeCredential,
  setSuspension,
} from '../services/credentials.ts';

export function credentialHandlers(ctx: IssuerContext): HandlersOf<typeof credentialEndpoints> {
  return {
    issueCredential: ({ body }, c) => issueDirect(ctx, body, c.get('actor')),
    getCredential: async ({ params }) => credentialView(ctx, await getCredential(ctx, params.vcId)),
    revokeCredential: ({ params, body }, c) => revokeCredential(ctx, params.vcId, body.reason, c.get('actor')),
    suspendCredential: ({ params, body }, c) => setSuspension(ctx, params.vcId, true, body.reason, c.get('actor')),
    reinstateCredential: ({ params, body }, c) => setSuspension(ctx, params.vcId, false, body.reason, c.get('actor')),
    renewCredential: ({ params, body }, c) => renewCredential(ctx, params.vcId, body.validitySeconds, c.get('actor')),
  };
}
