// signingFetch (wallet/vc/chain-request.ts), in Node and in Chromium: a fetch that signs every
// request naming the agent's chain, in full to an origin until it accepted it, by digest
// afterwards, in full again when a verifier that lost its cache answers CHAIN_UNKNOWN; any other
// refusal is returned untouched. The "server" is verifySignedRequest in process.
import { beforeAll, describe, expect, it } from 'vitest';
import { identityRequestSigner } from '../../../wallet/http-signatures/sign.ts';
import { issueAgentCredential } from '../../../wallet/vc/agent-credential.ts';
import { createChainCache, type ChainCache } from '../../../wallet/vc/chain-cache.ts';
import { CHAIN_DIGEST_HEADER, CHAIN_HEADER } from '../../../wallet/vc/chain-header.ts';
import { signingFetch } from '../../../wallet/vc/chain-request.ts';
import { createReplayCache } from '../../../wallet/vc/replay-cache.ts';
import { verifySignedRequest } from '../../../wallet/vc/signed-request.ts';
import type { SigningIdentity } from '../../../wallet/vc/identity.ts';
import type { AgentCredential } from '../../../wallet/vc/types.ts';
import { newIdentity, testResolver } from '../../support/agents.ts';

const TARGET = 'files.example.com';

let platform: SigningIdentity;
let agent: SigningIdentity;
let credential: AgentCredential;

beforeAll(async () => {
  platform = newIdentity();
  agent = newIdentity();
  credential = await issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files:read'],
    delegationDepth: 0,
    domains: [TARGET],
  });
});

interface Seen {
  url: string;
  form: 'full' | 'digest';
  status: number;
  reason?: string;
  body: string;
}

/** A verifier in process: answers 200 with the body it read, or 401 with the reason code. */
function verifierServer(seen: Seen[], cache: { current: ChainCache }) {
  const replayCache = createReplayCache();
  return async (request: Request): Promise<Response> => {
    const form = request.headers.has(CHAIN_HEADER) ? 'full' : 'digest';
    const result = await verifySignedRequest(request, {
      trustedIssuers: [platform.did],
      expectedDomain: TARGET,
      resolver: testResolver(),
      chainCache: cache.current,
      replayCache,
    });
    const body = await request.text();
    if (result.valid) {
      seen.push({ url: request.url, form, status: 200, body });
      return Response.json({ agent: result.agentDid });
    }
    seen.push({ url: request.url, form, status: 401, reason: result.reason, body });
    return Response.json({ valid: false, reason: result.reason }, { status: 401 });
  };
}

describe('signingFetch', () => {
  it('names the chain in full first, by digest once the origin accepted it, and in full to a new origin', async () => {
    const seen: Seen[] = [];
    const fetchSigned = signingFetch({
      signer: identityRequestSigner(agent),
      credentials: [credential],
      fetch: verifierServer(seen, { current: createChainCache() }),
    });
    expect((await fetchSigned(`https://${TARGET}/files/a`)).status).toBe(200);
    const answer = await fetchSigned(new URL(`https://${TARGET}/files/b`), { method: 'POST', body: '{"n":1}' });
    expect(await answer.json()).toEqual({ agent: agent.did });
    expect((await fetchSigned(`https://other.${TARGET}/files/c`)).status).toBe(200);
    expect(seen.map(({ form, status, body }) => ({ form, status, body }))).toEqual([
      { form: 'full', status: 200, body: '' },
      { form: 'digest', status: 200, body: '{"n":1}' },
      { form: 'full', status: 200, body: '' },
    ]);
  });

  it('sends the same request again in full, body included, when the verifier answers CHAIN_UNKNOWN', async () => {
    const seen: Seen[] = [];
    const cache = { current: createChainCache() };
    const fetchSigned = signingFetch({
      signer: identityRequestSigner(agent),
      credentials: [credential],
      fetch: verifierServer(seen, cache),
    });
    expect((await fetchSigned(`https://${TARGET}/files/a`)).status).toBe(200);
    cache.current = createChainCache(); // the verifier restarted: it holds no chain
    const answer = await fetchSigned(`https://${TARGET}/files/b`, { method: 'PUT', body: 'new text' });
    expect(answer.status).toBe(200);
    expect(seen.slice(1).map(({ form, status, reason, body }) => ({ form, status, reason, body }))).toEqual([
      { form: 'digest', status: 401, reason: 'CHAIN_UNKNOWN', body: 'new text' },
      { form: 'full', status: 200, reason: undefined, body: 'new text' },
    ]);
  });

  it('returns any other refusal as it is, and keeps sending the chain in full to an origin that never accepted it', async () => {
    const seen: Seen[] = [];
    const stranger = newIdentity();
    // Signed by a key that is not the chain's holder: every request is refused.
    const fetchSigned = signingFetch({
      signer: identityRequestSigner(stranger),
      credentials: [credential],
      fetch: verifierServer(seen, { current: createChainCache() }),
    });
    for (const path of ['a', 'b']) {
      const answer = await fetchSigned(`https://${TARGET}/files/${path}`);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ reason: 'KEY_NOT_AUTHORIZED' });
    }
    expect(seen.map(({ form, reason }) => ({ form, reason }))).toEqual([
      { form: 'full', reason: 'KEY_NOT_AUTHORIZED' },
      { form: 'full', reason: 'KEY_NOT_AUTHORIZED' },
    ]);
  });

  it('does not retry on a 401 that is not a JSON CHAIN_UNKNOWN (junk, or too large to read), and never throws on it', async () => {
    let calls = 0;
    const answers = [
      new Response('{"reason":"CHAIN_UNKNOWN"', { status: 401, headers: { 'content-type': 'application/json' } }),
      new Response(`{"reason":"CHAIN_UNKNOWN","pad":"${'x'.repeat(20_000)}"}`, {
        status: 401,
        headers: { 'content-type': 'application/json' },
      }),
      new Response('CHAIN_UNKNOWN', { status: 401 }),
    ];
    const fetchSigned = signingFetch({
      signer: identityRequestSigner(agent),
      credentials: [credential],
      fetch: (request) => {
        calls += 1;
        return Promise.resolve(
          request.headers.has(CHAIN_DIGEST_HEADER) ? (answers.shift() as Response) : new Response('ok'),
        );
      },
    });
    expect((await fetchSigned(`https://${TARGET}/`)).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await fetchSigned(`https://${TARGET}/`)).status).toBe(401);
    expect(calls).toBe(4);
  });
});
