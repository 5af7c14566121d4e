// Web Bot Auth key discovery on the issuer: the HTTP Message Signatures Directory of the agents
// whose keys it holds, and each agent's Signature Agent Card (docs/key-directory.md).
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519PublicJwk } from '../../wallet/crypto/jwt.ts';
import { ed25519KeyFromMultibase } from '../../wallet/did/public-key.ts';
import { createPublicKey } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import {
  createKeyDirectory,
  directoryPage,
  DIRECTORY_PAGE_KEYS,
  DIRECTORY_RESIGN_MS,
} from '../../issuer/services/key-directory.ts';
import { base64urlToBytes, bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { readSignatureAgentCard, readSignatureDirectory } from '../../wallet/http-signatures/directory-read.ts';
import { verifyResponseSignature } from '../../wallet/http-signatures/index.ts';
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

/** The agent's short id (its documents' path segment), as the operator API shows it with its card's URL. */
async function agentId(did: string): Promise<string> {
  const agent = (await issuer.call(agentPath(did), { admin: true })).json;
  expect(agent.signatureAgentCardUrl).toBe(`${issuer.url}/agents/${agent.id}/signature-agent-card`);
  return agent.id as string;
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
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = res.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await issuer.call(DIRECTORY, { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
    // HEAD, as the draft's deployment guidance asks: the headers (and signatures) without the body.
    const head = await issuer.fetch(issuer.url + DIRECTORY, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(MEDIA_TYPE);
    expect(head.headers.get('signature-input')).toBe(res.headers.get('signature-input'));
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
      seen.push(...page.agents.map((a) => a.did));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(all.agents.map((a) => a.did));
    // Over HTTP, the cursor is the query: after the first agent, the others.
    const first = (await issuer.call(DIRECTORY)).json.keys;
    const rest = await issuer.call(`${DIRECTORY}?cursor=${encodeURIComponent(all.agents[0]?.did as string)}`);
    expect(rest.json.keys).toEqual(first.slice(1));
  });

  it('refuses a cursor that is no agent of this issuer (400 VALIDATION_FAILED)', async () => {
    const res = await issuer.call(`${DIRECTORY}?cursor=${encodeURIComponent('did:key:z6MkNoSuchAgent')}`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_FAILED');
  });
});

/**
 * The directory as a verifier fetches it — over a real socket, not `issuer.fetch`: the size of its
 * signature headers is what a client's HTTP parser must take — with the request it answers.
 */
async function fetchDirectory(query = ''): Promise<{ response: Response; request: Request; body: string }> {
  const request = new Request(issuer.url + DIRECTORY + query);
  const fetched = await fetch(request.clone());
  const body = await fetched.text();
  return { response: new Response(body, { status: fetched.status, headers: fetched.headers }), request, body };
}

/** The listed keys by kid: what a verifier checks each signature with. */
function keysOf(body: string): Map<string, Uint8Array> {
  const keys = (JSON.parse(body) as { keys: { kid: string; x: string }[] }).keys;
  return new Map(keys.map((k) => [k.kid, base64urlToBytes(k.x) as Uint8Array]));
}

describe("the directory answer is signed once per listed key (the draft's possession proof)", () => {
  it("verifies with Mandate's RFC 9421 verifier: each key signs content-digest and the authority asked", async () => {
    const { response, request, body } = await fetchDirectory();
    const keys = keysOf(body);
    expect(keys.size).toBeGreaterThan(0);
    const labels = [...keys.keys()].map((_, i) => `binding${i}`);
    expect(
      response.headers
        .get('signature-input')
        ?.split(', ')
        .map((m) => m.split('=')[0]),
    ).toEqual(labels);
    for (const [index, kid] of [...keys.keys()].entries()) {
      const verified = await verifyResponseSignature(response, request, {
        label: `binding${index}`,
        tag: 'http-message-signatures-directory',
        requiredComponents: ['"@authority";req'],
        resolveKey: (keyid) => Promise.resolve(keys.get(keyid)),
      });
      expect(verified.keyid).toBe(kid);
      expect(verified.values['"@authority";req']).toBe(new URL(issuer.url).host);
      expect(verified.components).toEqual(['"content-digest"', '"@authority";req']);
      expect((verified.expires ?? 0) - verified.created).toBe(300);
    }
  });

  it('verifies with http-message-signatures (npm), every signature of the answer', async () => {
    const { response, request, body } = await fetchDirectory();
    const keys = keysOf(body);
    const record = (headers: Headers) => Object.fromEntries(headers.entries());
    const looked: string[] = [];
    const valid = await httpbis.verifyMessage(
      {
        all: true,
        keyLookup: (params) => {
          const keyid = String(params.keyid);
          looked.push(keyid);
          const key = keys.get(keyid);
          if (key === undefined) return Promise.resolve(null);
          const jwk = { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64url(key) };
          return Promise.resolve({
            id: keyid,
            algs: ['ed25519'],
            verify: createVerifier(createPublicKey({ key: jwk, format: 'jwk' }), 'ed25519'),
          });
        },
      },
      { status: response.status, headers: record(response.headers) },
      { method: 'GET', url: request.url, headers: record(request.headers) },
    );
    expect(valid).toBe(true);
    expect(looked.sort()).toEqual([...keys.keys()].sort());
  });

  it("is signed for the issuer's own authority only: fetched under another name, it does not verify", async () => {
    const { response, body } = await fetchDirectory();
    const keys = keysOf(body);
    const elsewhere = new Request(`https://mirror.example${DIRECTORY}`);
    await expect(
      verifyResponseSignature(response, elsewhere, {
        label: 'binding0',
        resolveKey: (keyid) => Promise.resolve(keys.get(keyid)),
      }),
    ).rejects.toMatchObject({ code: 'HTTP_SIGNATURE_INVALID' });
  });

  it('signs a page once and serves it again until something changes or a minute passes', async () => {
    let now = Date.now();
    const ctx = issuer.running.ctx;
    const directory = createKeyDirectory({ ...ctx, now: () => now });
    const first = await directory.answer(undefined);
    expect(await directory.answer(undefined)).toBe(first);
    now += DIRECTORY_RESIGN_MS - 1;
    expect(await directory.answer(undefined)).toBe(first);
    now += 1;
    const resigned = await directory.answer(undefined);
    expect(resigned).not.toBe(first);
    expect(resigned.body).toBe(first.body);
    // A revocation moves the read generation: the next answer is built again, without the key.
    const { agentDid, vcId } = await onboardServerAgent(issuer);
    agents.push(agentDid);
    const withAgent = await directory.answer(undefined);
    expect(withAgent.body).not.toBe(resigned.body);
    expect((await issuer.call(`/v1/vcs/${vcId}/revoke`, { admin: true, body: {} })).status).toBe(200);
    expect((await directory.answer(undefined)).body).toBe(resigned.body);
  });
  it("is what a verifier's readSignatureDirectory keeps whole: every listed key, none ignored", async () => {
    const { response, request, body } = await fetchDirectory();
    const read = await readSignatureDirectory(response, request);
    expect(read.ignored).toEqual([]);
    expect(read.keys).toEqual(keysOf(body));
  });

  it('leaves out a key custody cannot open, rather than list it unsigned, and says so in the log', async () => {
    const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
    const ctx = issuer.running.ctx;
    const log = { ...ctx.log, warn: (msg: string, fields?: Record<string, unknown>) => warnings.push({ msg, fields }) };
    // Another key-encryption key: no envelope opens (CUSTODY_KEY_UNREADABLE), so no key can sign.
    const directory = createKeyDirectory({ ...ctx, log, keyEncryptionKey: new Uint8Array(32).fill(1) });
    const answer = await directory.answer(undefined);
    expect(JSON.parse(answer.body)).toEqual({ keys: [] });
    expect(answer.headers['signature']).toBeUndefined();
    const listed = (await directoryPage(ctx, undefined)).agents;
    expect(warnings.map((w) => w.fields)).toEqual(
      listed.map((a) => ({ agentDid: a.did, code: 'CUSTODY_KEY_UNREADABLE' })),
    );
  });

  it('holds 32 keys an answer, its headers within what clients read, and names the next page', async () => {
    const ctx = issuer.running.ctx;
    const active = (await directoryPage(ctx, undefined, 1000)).agents.length;
    for (let i = active; i <= DIRECTORY_PAGE_KEYS; i++) agents.push((await onboardServerAgent(issuer)).agentDid);
    const { response, request, body } = await fetchDirectory();
    const keys = keysOf(body);
    expect(keys.size).toBe(DIRECTORY_PAGE_KEYS);
    const all = (await directoryPage(ctx, undefined, 1000)).agents;
    const last = all[DIRECTORY_PAGE_KEYS - 1]?.did as string;
    expect(response.headers.get('link')).toBe(`<${DIRECTORY}?cursor=${encodeURIComponent(last)}>; rel="next"`);
    // The signature headers take about 10 KB: under the 16 KiB of headers a client's parser reads.
    const input = response.headers.get('signature-input') as string;
    expect(input.length).toBeLessThan(8192);
    expect(input.length + (response.headers.get('signature') as string).length).toBeLessThan(12_000);
    const verified = await verifyResponseSignature(response, request, {
      label: `binding${DIRECTORY_PAGE_KEYS - 1}`,
      resolveKey: (keyid) => Promise.resolve(keys.get(keyid)),
    });
    expect(verified.keyid).toBe([...keys.keys()][DIRECTORY_PAGE_KEYS - 1]);
    const next = await fetchDirectory(`?cursor=${encodeURIComponent(last)}`);
    expect([...keysOf(next.body).keys()]).toEqual(
      (await issuer.call(`${DIRECTORY}?cursor=${encodeURIComponent(last)}`)).json.keys.map(
        (k: { kid: string }) => k.kid,
      ),
    );
    expect(keysOf(next.body).size).toBe(all.length - DIRECTORY_PAGE_KEYS);
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
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.json).toMatchObject({ client_id: issuer.url + path, did: agentDid, agent_status: 'active' });
      expect(res.json.jwks.keys).toEqual(await didDocumentJwks(agentDid));
      expect(res.json.jwks.keys).toHaveLength(1);
      // A verifier resolving Signature-Agent type=cimd reads the same key, and the DID.
      const read = readSignatureAgentCard(res.json, issuer.url + path);
      expect(read.did).toBe(agentDid);
      expect([...read.keys.keys()]).toEqual([res.json.jwks.keys[0].kid]);
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
