// agent.fetch end to end, nothing stood in: a running Mandate issuer on its defaults (DPoP only,
// no Bearer tokens) as the authorization server, a real MCP server (the SDK's McpServer) behind
// mcpAuth, and agents whose keys live in key stores. Requests are counted where they arrive: the
// resource server's hits, the issuer's audit records of issued tokens.
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileKeyStore } from '../../../wallet/keystore/file.ts';
import { createAgent, type Agent } from '../../../wallet/agent/index.ts';
import { readUnverifiedClaims } from '../../../wallet/crypto/jws.ts';
import { createMemoryKeyStore } from '../../../wallet/keystore/memory.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';
import type { ChainCredential, MandateCredential } from '../../../wallet/vc/types.ts';
import type { KeyStore } from '../../../wallet/keystore/types.ts';
import { runSnippet } from '../../support/doc-snippets.ts';
import { mintToken, onboardSelfAgent, startTestIssuer, tempDir, type TestIssuer } from '../../support/issuer.ts';
import { TOOLS } from '../../support/mcp.ts';
import { callTool, startGuardedMcp, type GuardedMcp } from '../../support/agent.ts';

const LOOPBACK = { allowHttpLoopback: true };
const INTROSPECTION_KEY = 'rs-introspection-key-0123456789abcdef';
/** The tools of support/mcp.ts, and one that needs a scope no agent here holds. */
const GUARDED_TOOLS = { ...TOOLS, unlisted_tool: ['files:delete'] };

let issuer: TestIssuer;
let mcp: GuardedMcp;

beforeAll(async () => {
  // The defaults (DPoP only), plus a key for the resource server's introspection.
  issuer = await startTestIssuer({ SERVICE_INTROSPECTION_KEYS: INTROSPECTION_KEY });
  mcp = await startGuardedMcp((resource) => ({
    resource,
    authorizationServer: issuer.url,
    tools: GUARDED_TOOLS,
    challengeScopes: ['calendar:read'],
  }));
});
afterAll(async () => {
  await mcp?.close();
  await issuer?.dispose();
});

interface Enrolled {
  store: KeyStore;
  did: string;
  vcId: string;
  credential: MandateCredential;
}

/** A self-custody agent enrolled at `at` with `scopes`, for `domains`; its key in a memory key store. */
async function enrolled(at: TestIssuer, scopes: string[], domains: string[]): Promise<Enrolled> {
  const store = createMemoryKeyStore();
  const info = await store.generate('agent');
  const identity = didKeyIdentity(await store.signer(info.id));
  const done = await onboardSelfAgent(
    at,
    identity,
    await mintToken(at, { requestedScopes: scopes, requestedDomains: domains }),
  );
  return {
    store,
    did: done.agentDid,
    vcId: done.vcId,
    credential: done.verifiableCredential as unknown as MandateCredential,
  };
}

/** Tokens the issuer issued to `did` (its audit log), newest first. */
async function issuedTo(at: TestIssuer, did: string): Promise<Record<string, unknown>[]> {
  const audit = await at.call('/v1/audit?event=OAUTH_TOKEN_ISSUED&order=desc&limit=100', { admin: true });
  return (audit.json.records as Record<string, unknown>[]).filter((r) => r.agentDid === did);
}

async function rootAgent(
  scopes = ['calendar:read', 'mail:send'],
  resource = mcp.resource,
): Promise<{ agent: Agent; enrolled: Enrolled }> {
  const agentEnrolled = await enrolled(issuer, scopes, [resource]);
  const agent = await createAgent({
    keyStore: agentEnrolled.store,
    credentials: [agentEnrolled.credential],
    issuer: issuer.url,
    urlPolicy: LOOPBACK,
  });
  return { agent, enrolled: agentEnrolled };
}

describe('a root agent against mcpAuth and the issuer on its defaults', () => {
  it('follows the 401 to a DPoP-bound token (private_key_jwt), then uses the cached token', async () => {
    const { agent } = await rootAgent();
    const first = await callTool(agent.fetch, mcp.resource, 'read_calendar');
    expect(first.status).toBe(200);
    expect(first.authInfo).toMatchObject({ clientId: agent.did, extra: { agentDid: agent.did, via: 'token' } });
    const issued = await issuedTo(issuer, agent.did);
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({
      data: { grantType: 'client_credentials', tokenType: 'DPoP', resource: mcp.resource, scopes: ['calendar:read'] },
    });
    const before = mcp.hits.length;
    const second = await callTool(agent.fetch, mcp.resource, 'read_calendar');
    expect(second.status).toBe(200);
    // A cache hit: one request to the resource, none to the token endpoint.
    expect(mcp.hits.slice(before)).toEqual([
      expect.objectContaining({ status: 200, authorization: expect.stringMatching(/^DPoP /) }),
    ]);
    expect(await issuedTo(issuer, agent.did)).toHaveLength(1);
  });

  it('steps up to a scope it holds: one new token for exactly the challenged scope', async () => {
    const { agent } = await rootAgent();
    expect((await callTool(agent.fetch, mcp.resource, 'read_calendar')).status).toBe(200);
    const before = mcp.hits.length;
    const mail = await callTool(agent.fetch, mcp.resource, 'send_mail');
    expect(mail.status).toBe(200);
    expect(mail.authInfo).toMatchObject({ scopes: ['mail:send'] });
    expect(mcp.hits.slice(before).map((h) => h.status)).toEqual([403, 200]);
    const issued = await issuedTo(issuer, agent.did);
    expect(issued.map((r) => (r.data as { scopes: string[] }).scopes)).toEqual([['mail:send'], ['calendar:read']]);
  });

  it('refuses to step up to a scope it does not hold: AGENT_SCOPE_NOT_HELD naming it, one request, no token asked', async () => {
    const { agent } = await rootAgent();
    expect((await callTool(agent.fetch, mcp.resource, 'read_calendar')).status).toBe(200);
    const before = mcp.hits.length;
    const error = await callTool(agent.fetch, mcp.resource, 'unlisted_tool').catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'AgentFetchError',
      code: 'AGENT_SCOPE_NOT_HELD',
      status: 403,
      scopes: ['files:delete'],
      serviceReason: 'INSUFFICIENT_SCOPE',
    });
    expect(mcp.hits.slice(before).map((h) => h.status)).toEqual([403]);
    expect(await issuedTo(issuer, agent.did)).toHaveLength(1);
  });
});

describe('an agent that holds no credential locally (its issuer knows it)', () => {
  it('gets its token the same way; a step-up the issuer refuses is AGENT_TOKEN_REFUSED naming the scopes asked', async () => {
    const agentEnrolled = await enrolled(issuer, ['calendar:read'], [mcp.resource]);
    const agent = await createAgent({ keyStore: agentEnrolled.store, issuer: issuer.url, urlPolicy: LOOPBACK });
    expect((await callTool(agent.fetch, mcp.resource, 'read_calendar')).status).toBe(200);
    // Its authority is unknown here, so the issuer decides: invalid_scope, once, no loop.
    const before = mcp.hits.length;
    await expect(callTool(agent.fetch, mcp.resource, 'send_mail')).rejects.toMatchObject({
      code: 'AGENT_TOKEN_REFUSED',
      oauthError: 'invalid_scope',
      serviceReason: 'SCOPE_NOT_GRANTED',
      scopes: ['mail:send'],
    });
    expect(mcp.hits.slice(before).map((h) => h.status)).toEqual([403]);
  });
});

describe('a delegated sub-agent', () => {
  it('exchanges a presentation of its chain (RFC 8693) for a DPoP-bound token; the tool sees its delegator', async () => {
    const parent = await enrolled(issuer, ['calendar:read', 'mail:send'], [mcp.resource]);
    const parentIdentity = didKeyIdentity(await parent.store.signer('agent'));
    const childStore = createMemoryKeyStore();
    const childKey = await childStore.generate('child');
    const child = didKeyIdentity(await childStore.signer(childKey.id));
    const delegated = await delegate(parent.credential as ChainCredential, {
      delegator: parentIdentity,
      delegateeDid: child.did,
      scopes: ['calendar:read'],
      domains: [mcp.resource],
    });
    const agent = await createAgent({
      keyStore: childStore,
      credentials: [delegated, parent.credential],
      issuer: issuer.url,
      urlPolicy: LOOPBACK,
    });
    const result = await callTool(agent.fetch, mcp.resource, 'read_calendar');
    expect(result.status).toBe(200);
    expect(result.authInfo).toMatchObject({
      clientId: child.did,
      extra: { agentDid: child.did, delegators: [parent.did] },
    });
    const issued = await issuedTo(issuer, child.did);
    expect(issued[0]).toMatchObject({
      data: { grantType: 'urn:ietf:params:oauth:grant-type:token-exchange', tokenType: 'DPoP' },
    });
    // The chain allows calendar:read only: mail:send is not asked for.
    await expect(callTool(agent.fetch, mcp.resource, 'send_mail')).rejects.toMatchObject({
      code: 'AGENT_SCOPE_NOT_HELD',
      scopes: ['mail:send'],
    });
  });
});

describe('docs/agents.md', () => {
  it('runs "an agent in ten lines" (example: agents-node) with a passphrase-encrypted file key', async () => {
    const keyDir = tempDir('mandate-agent-keys-');
    const passphrase = 'correct horse battery staple';
    const previous = process.env.AGENT_PASSPHRASE;
    process.env.AGENT_PASSPHRASE = passphrase;
    try {
      const store = createFileKeyStore({ directory: keyDir, passphrase, kdfCost: { N: 1024, r: 8, p: 1 } });
      const identity = didKeyIdentity(await store.signer((await store.generate('agent')).id));
      const done = await onboardSelfAgent(
        issuer,
        identity,
        await mintToken(issuer, { requestedScopes: ['calendar:read'], requestedDomains: [mcp.resource] }),
      );
      const doc = readFileSync(new URL('../../../docs/agents.md', import.meta.url), 'utf8');
      const code = /<!-- example: agents-node[^>]*-->\s*\n```ts\n([\s\S]*?)\n```/.exec(doc)?.[1];
      const { answer, agent } = (await runSnippet(code ?? '', {
        keyDir,
        credential: done.verifiableCredential,
        issuerUrl: issuer.url,
        mcpUrl: mcp.resource,
      })) as { answer: Response; agent: Agent };
      expect(answer.status).toBe(200);
      expect(agent.did).toBe(identity.did);
    } finally {
      if (previous === undefined) delete process.env.AGENT_PASSPHRASE;
      else process.env.AGENT_PASSPHRASE = previous;
      rmSync(keyDir, { recursive: true, force: true });
    }
  });
});

describe('DPoP nonces (RFC 9449 §8, §9)', () => {
  it('answers use_dpop_nonce at the resource server once, with the nonce it gave', async () => {
    let nonce = 'rs-nonce-1';
    const gated = await startGuardedMcp(
      (resource) => ({ resource, authorizationServer: issuer.url, tools: GUARDED_TOOLS }),
      async (c, next) => {
        const proof = c.req.header('dpop');
        if (proof === undefined) return next();
        if (readUnverifiedClaims(proof)?.nonce === nonce) return next();
        return c.json({ error: 'use_dpop_nonce' }, 401, {
          'www-authenticate':
            'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"',
          'dpop-nonce': nonce,
        });
      },
    );
    try {
      const { agent } = await rootAgent(['calendar:read'], gated.resource);
      expect((await callTool(agent.fetch, gated.resource, 'read_calendar')).status).toBe(200);
      expect(gated.hits.map((h) => h.status)).toEqual([401, 401, 200]);
      // A known nonce goes with the next proof at once; a new one costs one more round trip.
      expect((await callTool(agent.fetch, gated.resource, 'read_calendar')).status).toBe(200);
      nonce = 'rs-nonce-2';
      expect((await callTool(agent.fetch, gated.resource, 'read_calendar')).status).toBe(200);
      expect(gated.hits.slice(3).map((h) => h.status)).toEqual([200, 401, 200]);
    } finally {
      await gated.close();
    }
  });

  it('answers use_dpop_nonce at the token endpoint once (an issuer with SERVICE_OAUTH_DPOP_NONCE=true)', async () => {
    const strict = await startTestIssuer({ SERVICE_OAUTH_DPOP_NONCE: 'true' });
    const served = await startGuardedMcp((resource) => ({ resource, authorizationServer: strict.url, tools: TOOLS }));
    try {
      const agentEnrolled = await enrolled(strict, ['calendar:read'], [served.resource]);
      const agent = await createAgent({
        keyStore: agentEnrolled.store,
        credentials: [agentEnrolled.credential],
        issuer: strict.url,
        urlPolicy: LOOPBACK,
      });
      expect((await callTool(agent.fetch, served.resource, 'read_calendar')).status).toBe(200);
      const audit = await strict.call('/v1/audit?order=asc&limit=100', { admin: true });
      const oauth = (audit.json.records as { event: string; reason: string; agentDid?: string }[]).filter((r) =>
        r.event.startsWith('OAUTH_TOKEN'),
      );
      expect(oauth.map((r) => [r.event, r.reason])).toEqual([
        ['OAUTH_TOKEN_REFUSED', 'DPOP_NONCE_REQUIRED'],
        ['OAUTH_TOKEN_ISSUED', 'VALID'],
      ]);
    } finally {
      await served.close();
      await strict.dispose();
    }
  });
});

describe('a token refused mid-session', () => {
  it('a revoked credential (the resource server introspects): one new token asked, refused, AGENT_TOKEN_REFUSED — no loop', async () => {
    const clock = { ms: Date.now() };
    const introspecting = await startGuardedMcp((resource) => ({
      resource,
      authorizationServer: issuer.url,
      tools: GUARDED_TOOLS,
      introspection: { key: INTROSPECTION_KEY, cacheTtlSec: 10 },
      now: () => clock.ms,
    }));
    try {
      const agentEnrolled = await enrolled(issuer, ['calendar:read'], [introspecting.resource]);
      const agent = await createAgent({
        keyStore: agentEnrolled.store,
        credentials: [agentEnrolled.credential],
        issuer: issuer.url,
        urlPolicy: LOOPBACK,
      });
      expect((await callTool(agent.fetch, introspecting.resource, 'read_calendar')).status).toBe(200);
      const vc = encodeURIComponent(agentEnrolled.vcId);
      expect((await issuer.call(`/v1/vcs/${vc}/revoke`, { admin: true, body: { reason: 'gone' } })).status).toBe(200);
      clock.ms += 11_000; // past the introspection answer's cache
      const before = introspecting.hits.length;
      const error = await callTool(agent.fetch, introspecting.resource, 'read_calendar').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'AGENT_TOKEN_REFUSED',
        oauthError: 'invalid_grant',
        serviceReason: 'CREDENTIAL_REVOKED',
      });
      expect(introspecting.hits.slice(before).map((h) => h.status)).toEqual([401]);
      expect(await issuedTo(issuer, agentEnrolled.did)).toHaveLength(1);
    } finally {
      await introspecting.close();
    }
  });
});
