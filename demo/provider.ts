/**
 * The demo's sample service provider, "Demo Files": what a real provider adds around Mandate.
 *
 * - It holds its OWN key (did:key) and its OWN Bitstring Status List, published at its own URL
 *   (`/provider/status/grants`), signed with that key: a grant it issued can be revoked by it
 *   alone, without the issuer (docs/protocol.md §Delegation grant).
 * - Consent: it hands out single-use challenges; the user's DID signs a UserConsent over one
 *   (proofPurpose authentication, domain = the provider's DID); the provider verifies that
 *   signature and the agent's AgentCredential (issued by the trusted issuer) before it signs a
 *   DelegationGrantCredential, never wider than the user approved nor than the agent's ceiling.
 * - Its API (`/api/files/*`) sits behind the service-worker verifier in the page: requests that
 *   reach it carry the worker's verified claims (X-Mandate-Agent-Did, X-Mandate-Scopes).
 * - It records its authorizations and refusals in the issuer's audit trail with signed
 *   AuditEvents (`POST /v1/audit/events`, authenticated by its DID's key, no admin key).
 *
 * Everything here is Web-standard Request/Response (Hono), so it runs in any server.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createProof, verifyProof } from '../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../wallet/crypto/ed25519.ts';
import { LruCache } from '../wallet/crypto/lru.ts';
import { randomBytes } from '../wallet/crypto/bytes.ts';
import { encodeBase64url } from '../wallet/crypto/multikey.ts';
import { createCachedResolver } from '../wallet/did/cache.ts';
import { resolveDidKey } from '../wallet/did/key.ts';
import { createResolver } from '../wallet/did/registry.ts';
import { createKeyResolver } from '../wallet/did/verification-method.ts';
import { createWebResolver } from '../wallet/did/web.ts';
import { allocateIndex } from '../wallet/status/allocate.ts';
import { createStatusList, setStatus } from '../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../wallet/status/credential.ts';
import { encodeStatusList } from '../wallet/status/encoded-list.ts';
import { issueGrant } from '../wallet/vc/grant.ts';
import { didKeyIdentity, newUrnUuid, type SigningIdentity } from '../wallet/vc/identity.ts';
import { issuerId, parseCredential } from '../wallet/vc/parse.ts';
import { isMandateError } from '../wallet/crypto/errors.ts';
import { parseJson } from '../wallet/crypto/jcs.ts';
import type { AgentCredential, DelegationGrantCredential, UserConsent } from '../wallet/vc/types.ts';

/** One line of what the provider checked, as the page shows it (✓/✗). */
export interface Check {
  check: string;
  ok: boolean;
  detail?: string;
}

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

export interface ProviderAuditResult {
  recorded: boolean;
  detail: string;
}

export interface DemoProvider {
  readonly did: string;
  readonly statusListUrl: string;
  /** The provider's routes: /provider/* and /api/*. */
  readonly app: Hono;
  /** Signs and posts an AuditEvent to the issuer (best effort; the answer says whether it landed). */
  recordEvent(event: {
    agentDid?: string;
    vpId?: string;
    action: string;
    result: string;
  }): Promise<ProviderAuditResult>;
  /** Revokes a grant this provider issued, on its own status list. */
  revokeGrant(grantId: string): boolean;
}

const CHALLENGE_TTL_MS = 5 * 60_000;
/** Bound on outstanding challenges: a flood of GETs evicts the oldest rather than growing memory. */
const MAX_CHALLENGES = 1000;
const MAX_GRANTS = 10_000;
/** Largest request body accepted (an AgentCredential and a consent are ~2 KB). */
const MAX_REQUEST_BYTES = 32 * 1024;
/** Agent DIDs are did:key here, but a DID is bounded by the issuer's schema anyway. */
const DID_SYNTAX = /^did:[a-z0-9]+:[\x21-\x7e]{1,2048}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function createDemoProvider(options: ProviderOptions): Promise<DemoProvider> {
  const now = options.now ?? Date.now;
  const identity: SigningIdentity = didKeyIdentity(seedSigner(generateSeed()));
  const statusListUrl = `${options.origin}/provider/status/grants`;
  const statusListTtlMs = options.statusListTtlMs ?? 1000;
  const list = createStatusList();
  const usedIndexes = new Set<number>();
  const grantIndexes = new LruCache<string, number>({ max: MAX_GRANTS });
  const challenges = new LruCache<string, true>({ max: MAX_CHALLENGES, ttlMs: CHALLENGE_TTL_MS, now });
  // The provider verifies the issuer's credentials (did:web on loopback in the demo) and the user's did:key.
  const resolver = createCachedResolver(
    createResolver({ methods: { key: resolveDidKey, web: createWebResolver({ allowHttpLoopback: true }) } }),
  );
  const resolveKey = createKeyResolver(resolver);
  let published: { credential: unknown; version: number } | undefined;
  let version = 0;

  async function statusListCredential(): Promise<unknown> {
    if (published?.version === version) return published.credential;
    const current = version;
    const unsigned = buildStatusListCredential({
      id: statusListUrl,
      issuer: identity.did,
      validFrom: new Date(now()),
      statusPurpose: 'revocation',
      encodedList: await encodeStatusList(list),
      ttl: statusListTtlMs,
    });
    const credential = await createProof(unsigned, {
      signer: identity.signer,
      verificationMethod: identity.verificationMethod,
      proofPurpose: 'assertionMethod',
    });
    published = { credential, version: current };
    return credential;
  }

  /** Verifies the consent and the agent's credential; every check is reported, the first failure stops. */
  async function checkConsentRequest(
    body: unknown,
  ): Promise<{ checks: Check[]; consent?: UserConsent; agent?: AgentCredential }> {
    const checks: Check[] = [];
    const fail = (check: string, detail: string) => {
      checks.push({ check, ok: false, detail });
      return { checks };
    };
    if (!isRecord(body) || !isRecord(body.consent) || !isRecord(body.agentCredential))
      return fail('request', 'expected {consent, agentCredential}');
    const consent = body.consent as unknown as UserConsent;
    const proof = isRecord(consent.proof) ? consent.proof : undefined;
    const challenge = typeof proof?.challenge === 'string' ? proof.challenge : '';
    if (!challenges.get(challenge))
      return fail('challenge is ours, unexpired and unused', 'unknown, expired or already used');
    challenges.delete(challenge);
    checks.push({ check: 'challenge is ours, unexpired and unused', ok: true });
    if (
      consent.type !== 'UserConsent' ||
      consent.provider !== identity.did ||
      typeof consent.user !== 'string' ||
      !DID_SYNTAX.test(consent.user)
    ) {
      return fail('consent names this provider', `provider ${String(consent.provider)}`);
    }
    checks.push({ check: 'consent names this provider', ok: true, detail: identity.did });
    try {
      await verifyProof(consent, {
        resolveKey,
        expectedProofPurpose: 'authentication',
        expectedChallenge: challenge,
        expectedDomain: identity.did,
        now: new Date(now()),
      });
    } catch (error) {
      return fail("user's signature over the consent (authentication, challenge, domain)", message(error));
    }
    checks.push({
      check: "user's signature over the consent (authentication, challenge, domain)",
      ok: true,
      detail: consent.user,
    });
    let agent: AgentCredential;
    try {
      agent = parseCredential(body.agentCredential) as AgentCredential;
      if (!agent.type.includes('AgentCredential') || issuerId(agent) !== options.issuerDid)
        throw new Error(`not an AgentCredential of ${options.issuerDid}`);
      await verifyProof(agent, { resolveKey, expectedProofPurpose: 'assertionMethod', now: new Date(now()) });
    } catch (error) {
      return fail("agent's credential is signed by the trusted issuer", message(error));
    }
    checks.push({ check: "agent's credential is signed by the trusted issuer", ok: true, detail: options.issuerDid });
    if (consent.agent !== agent.credentialSubject.id)
      return fail("consent names the credential's agent", `${String(consent.agent)} ≠ ${agent.credentialSubject.id}`);
    checks.push({ check: "consent names the credential's agent", ok: true, detail: agent.credentialSubject.id });
    return { checks, consent, agent };
  }

  async function recordEvent(event: {
    agentDid?: string;
    vpId?: string;
    action: string;
    result: string;
  }): Promise<ProviderAuditResult> {
    const unsigned = {
      type: 'AuditEvent',
      id: newUrnUuid(),
      provider: identity.did,
      event: 'authorization',
      ...(event.agentDid && DID_SYNTAX.test(event.agentDid) ? { agentDid: event.agentDid } : {}),
      ...(event.vpId ? { vpId: event.vpId.slice(0, 256) } : {}),
      action: event.action.slice(0, 256),
      result: event.result.slice(0, 256),
    };
    try {
      const signed = await createProof(unsigned, {
        signer: identity.signer,
        verificationMethod: identity.verificationMethod,
        proofPurpose: 'assertionMethod',
      });
      const response = await fetch(`${options.issuerUrl}/v1/audit/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(signed),
        signal: AbortSignal.timeout(3000),
      });
      return {
        recorded: response.ok,
        detail: response.ok ? 'recorded by the issuer' : `the issuer answered ${response.status}`,
      };
    } catch (error) {
      return { recorded: false, detail: `the issuer is unreachable: ${message(error)}` };
    }
  }

  const app = new Hono();
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_REQUEST_BYTES,
      onError: (c) =>
        c.json(
          { error: { code: 'PAYLOAD_TOO_LARGE', message: `request bodies are limited to ${MAX_REQUEST_BYTES} bytes` } },
          413,
        ),
    }),
  );

  app.get('/provider/status/grants', async (c) => {
    const credential = await statusListCredential();
    return c.json(credential as object, 200, {
      'cache-control': `public, max-age=${Math.max(1, Math.floor(statusListTtlMs / 1000))}`,
      'access-control-allow-origin': '*',
    });
  });

  app.get('/provider/consent', (c) => {
    const challenge = encodeBase64url(randomBytes(16));
    challenges.set(challenge, true);
    return c.json(
      {
        provider: identity.did,
        providerName: 'Demo Files',
        target: options.target,
        privilegeScopes: [...options.offeredScopes],
        challenge,
        expiresAt: new Date(now() + CHALLENGE_TTL_MS).toISOString(),
      },
      200,
      {
        'cache-control': 'no-store',
      },
    );
  });

  app.post('/provider/grants', async (c) => {
    let body: unknown;
    try {
      // The strict reader a verifier uses: a consent or credential whose text names a member
      // twice would read one way here and another to a first-wins parser downstream.
      body = parseJson(await c.req.text());
    } catch {
      return c.json(
        {
          error: {
            code: 'MALFORMED',
            message: 'the body is not safe JSON (syntax, depth, a forbidden key or a member named twice)',
          },
        },
        400,
      );
    }
    const { checks, consent, agent } = await checkConsentRequest(body);
    if (!consent || !agent) return c.json({ granted: false, checks }, 403);
    const index = allocateIndex(list.length, usedIndexes);
    usedIndexes.add(index);
    let grant: DelegationGrantCredential;
    try {
      grant = await issueGrant({
        provider: identity,
        agentDid: agent.credentialSubject.id,
        privilegeScopes: [...consent.privilegeScopes],
        consent,
        ceiling: [...agent.credentialSubject.privilegeScopes],
        credentialStatus: [
          buildStatusListEntry({
            statusListCredential: statusListUrl,
            statusListIndex: index,
            statusPurpose: 'revocation',
          }),
        ],
        validFrom: new Date(now()),
        validUntil: new Date(now() + (options.grantLifetimeSeconds ?? 3600) * 1000),
      });
    } catch (error) {
      checks.push({
        check: "grant within the consent and the agent's ceiling",
        ok: false,
        detail: isMandateError(error) ? `${error.code}: ${error.message}` : message(error),
      });
      return c.json({ granted: false, checks }, 403);
    }
    grantIndexes.set(grant.id, index);
    checks.push({
      check: "grant within the consent and the agent's ceiling",
      ok: true,
      detail: grant.credentialSubject.privilegeScopes.join(' '),
    });
    checks.push({
      check: "signed with the provider's own key, on its own status list",
      ok: true,
      detail: `${statusListUrl}#${index}`,
    });
    return c.json({ granted: true, checks, grant }, 201);
  });

  // A refusal the page's service worker made (the provider never saw that request): recorded in
  // the issuer's audit trail under the provider's signature. Only reason codes are accepted.
  app.post('/provider/refusals', async (c) => {
    const body: unknown = await c.req.json().catch(() => undefined);
    if (
      !isRecord(body) ||
      typeof body.reason !== 'string' ||
      !/^[A-Z_]{3,40}$/.test(body.reason) ||
      typeof body.action !== 'string'
    ) {
      return c.json({ error: { code: 'MALFORMED', message: 'expected {reason, action}' } }, 400);
    }
    const result = await recordEvent({
      action: body.action,
      result: `denied ${body.reason}`,
      ...(typeof body.agentDid === 'string' ? { agentDid: body.agentDid } : {}),
    });
    return c.json(result, result.recorded ? 201 : 502);
  });

  // The API itself. Behind the service worker, a request arrives only when the worker allowed
  // it, with the claims it verified; it never sees the presentation.
  app.on(['GET', 'POST'], '/api/files/:name', async (c) => {
    const agentDid = c.req.header('x-mandate-agent-did');
    const scopes = c.req.header('x-mandate-scopes');
    const vpId = c.req.header('x-mandate-vp-id');
    if (!agentDid || scopes === undefined)
      return c.json({ error: { code: 'UNVERIFIED', message: 'this API is reached through the verifier' } }, 401);
    const action = `${c.req.method} /api/files/${c.req.param('name')}`;
    const audit = await recordEvent({ agentDid, ...(vpId ? { vpId } : {}), action, result: 'allowed' });
    return c.json({
      ok: true,
      file: c.req.param('name'),
      agentDid,
      effectiveScopes: scopes.split(' ').filter(Boolean),
      vpId,
      audit: audit.detail,
    });
  });

  return {
    did: identity.did,
    statusListUrl,
    app,
    recordEvent,
    revokeGrant(grantId) {
      const index = grantIndexes.get(grantId);
      if (index === undefined) return false;
      setStatus(list, index, 1);
      version += 1;
      return true;
    },
  };
}
