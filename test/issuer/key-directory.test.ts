// Web Bot Auth key discovery on the issuer: the HTTP Message Signatures Directory of the agents
// whose keys it holds, and each agent's Signature Agent Card (docs/key-directory.md).
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519PublicJwk } from '../../wallet/crypto/jwt.ts';
import { ed25519KeyFromMultibase } from '../../wallet/did/public-key.ts';
import { directoryPage } from '../../issuer/services/key-directory.ts';
import { newIdentity } from '../support/agents.ts';
import {
  agentPath,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  type TestIssuer,
} from '../support/issuer.ts';

const DIRECTORY = '/.well-known/http-message-signatures-directory';
const MEDIA_TYPE = 'application/http-message-signatures-directory+json';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

/** The agent's short id (its documents' path segment), as the operator API shows it. */
async function agentId(did: string): Promise<string> {
  return (await issuer.call(agentPath(did), { admin: true })).json.id as string;
}

/** The public JWKs of the `authentication` keys of the agent's DID document, as the issuer's resolver reads it. */
async function didDocumentJwks(did: string): Promise<unknown[]> {
  const resolved = await issuer.running.ctx.resolver.resolve(did);
  const doc = resolved.didDocument;
  if (!doc) throw new Error(`${did} does not resolve`);
  const methods = (doc.verificationMethod ?? []).filter((vm) =>
    (doc.authentication ?? []).some((a) => (typeof a === 'string' ? a : a.id) === vm.id),
  );
  return Promise.all(methods.map((vm) => ed25519PublicJwk(ed25519KeyFromMultibase(vm.publicKeyMultibase as string))));
}

async function directoryDids(): Promise<string[]> {
  const res = await issuer.call(DIRECTORY);
  expect(res.status).toBe(200);
  const all = new Map<string, string>();
  for (const did of agents) for (const jwk of (await didDocumentJwks(did)) as { kid: string }[]) all.set(jwk.kid, did);
  return (res.json.keys as { kid: string }[]).map((k) => all.get(k.kid) ?? `unknown key ${k.kid}`);
}

const agents: string[] = [];

describe('GET /.well-known/http-message-signatures-directory', () => {
  it('lists exactly the keys of the active server-custody agents, as their DID documents hold them', async () => {
    const first = await onboardServerAgent(issuer);
    const second = await onboardServerAgent(issuer);
    const self = await onboardSelfAgent(issuer, newIdentity());
    agents.push(first.agentDid, second.agentDid, self.agentDid);
    const res = await issuer.call(DIRECTORY);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(MEDIA_TYPE);
    expect(res.json).toEqual({
      keys: [...(await didDocumentJwks(first.agentDid)), ...(await didDocumentJwks(second.agentDid))],
    });
    // Each kid is the RFC 7638 thumbprint, the keyid a Web Bot Auth signature names.
    for (const key of res.json.keys)
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    // The self-custody agent's key is not the issuer's to prove: it is on its card, not here.
    expect(await directoryDids()).toEqual([first.agentDid, second.agentDid]);
  });

  it('drops an agent once its credential is revoked or suspended, or its DID deactivated', async () => {
    const revoked = await onboardServerAgent(issuer);
    const suspended = await onboardServerAgent(issuer);
    const deactivated = await onboardServerAgent(issuer);
    agents.push(revoked.agentDid, suspended.agentDid, deactivated.agentDid);
    const before = await directoryDids();
    expect(before.slice(-3)).toEqual([revoked.agentDid, suspended.agentDid, deactivated.agentDid]);
    expect((await issuer.call(`/v1/vcs/${revoked.vcId}/revoke`, { admin: true, body: {} })).status).toBe(200);
    expect((await issuer.call(`/v1/vcs/${suspended.vcId}/suspend`, { admin: true, body: {} })).status).toBe(200);
    const off = await issuer.call(`/v1/dids/${encodeURIComponent(deactivated.agentDid)}/deactivate`, {
      admin: true,
      body: {},
    });
    expect(off.status).toBe(200);
    expect(await directoryDids()).toEqual(before.slice(0, -3));
  });

  it('is a public document: any origin reads it, with an ETag and a short cache lifetime', async () => {
    const res = await issuer.call(DIRECTORY, { headers: { origin: 'https://verifier.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = res.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await issuer.call(DIRECTORY, { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
  });

  it('pages oldest agent first: each page names the next by the DID of its last agent', async () => {
    for (let i = 0; i < 3; i++) agents.push((await onboardServerAgent(issuer)).agentDid);
    const ctx = issuer.running.ctx;
    const all = await directoryPage(ctx, undefined);
    expect(all.nextCursor).toBeUndefined();
    expect(all.agents.length).toBeGreaterThanOrEqual(5);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await directoryPage(ctx, cursor, 2);
      expect(page.agents.length).toBeLessThanOrEqual(2);
      expect(page.document.keys).toHaveLength(page.agents.length);
      seen.push(...page.agents);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(all.agents);
    // Over HTTP, the cursor is the query: after the first agent, the others.
    const rest = await issuer.call(`${DIRECTORY}?cursor=${encodeURIComponent(all.agents[0] as string)}`);
    expect(rest.json.keys).toEqual(all.document.keys.slice(1));
  });

  it('refuses a cursor that is no agent of this issuer (400 VALIDATION_FAILED)', async () => {
    const res = await issuer.call(`${DIRECTORY}?cursor=${encodeURIComponent('did:key:z6MkNoSuchAgent')}`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('GET /agents/{id}/signature-agent-card', () => {
  it("is OAuth client metadata whose client_id is its own URL, with the agent's DID and its DID document's keys", async () => {
    for (const onboard of [() => onboardServerAgent(issuer), () => onboardSelfAgent(issuer, newIdentity())]) {
      const { agentDid } = await onboard();
      const path = `/agents/${await agentId(agentDid)}/signature-agent-card`;
      const res = await issuer.call(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.json).toMatchObject({ client_id: issuer.url + path, did: agentDid, agent_status: 'active' });
      expect(res.json.jwks.keys).toEqual(await didDocumentJwks(agentDid));
      expect(res.json.jwks.keys).toHaveLength(1);
      // The MCP SDK reads it as client metadata (redirect_uris is required there, and empty here).
      const metadata = OAuthClientMetadataSchema.parse(res.json);
      expect(metadata.jwks).toEqual(res.json.jwks);
      expect(metadata.redirect_uris).toEqual([]);
    }
  });

  it('says how the agent authenticates: private_key_jwt for self custody, none for a key the issuer holds', async () => {
    const server = await onboardServerAgent(issuer);
    const self = await onboardSelfAgent(issuer, newIdentity());
    const card = async (did: string) => (await issuer.call(`/agents/${await agentId(did)}/signature-agent-card`)).json;
    expect((await card(server.agentDid)).token_endpoint_auth_method).toBe('none');
    expect((await card(self.agentDid)).token_endpoint_auth_method).toBe('private_key_jwt');
  });

  it('lists no key once the agent is revoked, and says so (200: a verifier drops the key it cached)', async () => {
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    const path = `/agents/${await agentId(agentDid)}/signature-agent-card`;
    expect((await issuer.call(`/v1/vcs/${vcId}/revoke`, { admin: true, body: {} })).status).toBe(200);
    const res = await issuer.call(path);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ did: agentDid, agent_status: 'revoked', jwks: { keys: [] } });
  });

  it('answers an unknown agent 404 AGENT_NOT_FOUND, and a malformed id 400 VALIDATION_FAILED', async () => {
    const unknown = await issuer.call('/agents/no-such-agent/signature-agent-card');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('AGENT_NOT_FOUND');
    const malformed = await issuer.call(`/agents/${'x'.repeat(129)}/signature-agent-card`);
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe('VALIDATION_FAILED');
  });
});
