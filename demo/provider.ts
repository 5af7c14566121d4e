/**
 * The demo's sample service provider, "Demo Files": what a real provider adds around Mandate.
 * It holds its OWN key (did:key) and its OWN Bitstring Status List (`/provider/status/grants`),
 * so it alone can revoke its grants (docs/protocol.md §Delegation grant); it signs a
 * DelegationGrantCredential only after verifying the user's UserConsent over its single-use
 * challenge and the agent's AgentCredential; its API (`/api/files/*`) sits behind the
 * service-worker verifier; it records its decisions as signed AuditEvents (`POST
 * /v1/audit/events`, no admin key). The flow step by step: docs/demo.md §The eight steps.
 *
 * Everything here is Web-standard Request/Response (Hono), so it runs in any server.
 */
import type { Hono } from 'hono';
import { generateSeed, seedSigner } from '../wallet/crypto/ed25519.ts';
import { createCachedResolver } from '../wallet/did/cache.ts';
import { resolveDidKey } from '../wallet/did/key.ts';
import { createResolver } from '../wallet/did/registry.ts';
import { createKeyResolver } from '../wallet/did/verification-method.ts';
import { createWebResolver } from '../wallet/did/web.ts';
import { didKeyIdentity, type SigningIdentity } from '../wallet/vc/identity.ts';
import { recordAuditEvent, type ProviderAuditEvent, type ProviderAuditResult } from './provider/audit-event.ts';
import { createConsentChallenges } from './provider/challenges.ts';
import { createGrantStatusList } from './provider/grant-status.ts';
import { providerRoutes } from './provider/routes.ts';

export type { Check } from './provider/consent-check.ts';
export type { ProviderAuditEvent, ProviderAuditResult } from './provider/audit-event.ts';

export interface ProviderOptions {
  /** The provider's public origin, e.g. http://127.0.0.1:5173 (its status list is published there). */
  origin: string;
  /** The service name: the proof domain presentations to this API must carry. */
  target: string;
  /** The issuer whose AgentCredentials the provider accepts as roots. */
  issuerDid: string;
  /** The issuer's base URL, where audit events are posted. */
  issuerUrl: string;
  /** The scopes the provider asks users to approve. */
  offeredScopes: readonly string[];
  /** Lifetime of a grant (default 1 hour). */
  grantLifetimeSeconds?: number;
  /** `ttl` of the published status list (Bitstring Status List §2.2; default 1 s for the demo). */
  statusListTtlMs?: number;
  now?: () => number;
}

export interface DemoProvider {
  readonly did: string;
  readonly statusListUrl: string;
  /** The provider's routes: /provider/* and /api/*. */
  readonly app: Hono;
  /** Signs and posts an AuditEvent to the issuer (best effort; the answer says whether it landed). */
  recordEvent(event: ProviderAuditEvent): Promise<ProviderAuditResult>;
  /** Revokes a grant this provider issued, on its own status list. */
  revokeGrant(grantId: string): boolean;
}

/** The provider verifies the issuer's credentials (did:web on loopback in the demo) and the user's did:key. */
function providerResolver() {
  const methods = { key: resolveDidKey, web: createWebResolver({ allowHttpLoopback: true }) };
  return createCachedResolver(createResolver({ methods }));
}

/** The provider, with a fresh key: its routes, its audit events, its grant revocation (a Promise, as callers await it). */
export function createDemoProvider(options: ProviderOptions): Promise<DemoProvider> {
  const now = options.now ?? Date.now;
  const identity: SigningIdentity = didKeyIdentity(seedSigner(generateSeed()));
  const statusList = createGrantStatusList({
    identity,
    url: `${options.origin}/provider/status/grants`,
    ttlMs: options.statusListTtlMs ?? 1000,
    now,
  });
  const challenges = createConsentChallenges(now);
  const recordEvent = (event: ProviderAuditEvent) => recordAuditEvent(identity, options.issuerUrl, event);
  const app = providerRoutes({
    identity,
    target: options.target,
    offeredScopes: options.offeredScopes,
    challenges,
    statusList,
    recordEvent,
    signedRequests: {
      trustedIssuers: [options.issuerDid],
      trustedGrantIssuers: [identity.did],
      target: options.target,
      resolver: providerResolver(),
      // The issuer's and the provider's status lists are http on loopback in the demo.
      urlPolicy: { allowHttpLoopback: true },
      now,
    },
    grants: {
      identity,
      statusList,
      consentCheck: {
        providerDid: identity.did,
        issuerDid: options.issuerDid,
        challenges,
        resolveKey: createKeyResolver(providerResolver()),
        now,
      },
      lifetimeSeconds: options.grantLifetimeSeconds ?? 3600,
      now,
    },
  });
  return Promise.resolve({
    did: identity.did,
    statusListUrl: statusList.url,
    app,
    recordEvent,
    revokeGrant: (grantId) => statusList.revoke(grantId),
  });
}
