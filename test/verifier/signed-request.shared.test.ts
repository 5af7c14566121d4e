// Signed requests bound to a credential chain (docs/protocol.md §Signed requests) through
// verifyRequest, the core the Hono middleware, the Node adapter and the service worker share, in
// Node and in Chromium: a real chain accepted in full and then by digest, and every way such a
// request is refused — replayed, re-targeted, its body changed, expired, signed by a key outside
// the chain, naming a digest the verifier does not hold, its chain revoked after it was cached.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { identityRequestSigner, requestSigner, signRequest } from '../../wallet/http-signatures/sign.ts';
import { createStatusList, setStatus, type StatusBitstring } from '../../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../wallet/status/credential.ts';
import { encodeStatusList } from '../../wallet/status/encoded-list.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import { CHAIN_DIGEST_HEADER, CHAIN_HEADER, chainDigest, chainHeaders } from '../../wallet/vc/chain-header.ts';
import { signChainedRequest, type ChainedRequestOptions } from '../../wallet/vc/chain-request.ts';
import { delegate } from '../../wallet/vc/delegation.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { AgentCredential, DelegatedAgentCredential } from '../../wallet/vc/types.ts';
import {
  encodePresentationHeader,
  forwardClaims,
  issueChallenge,
  verifyRequest,
  verifyRequestWithBody,
  type RequestVerdict,
  type VerifyRequestOptions,
} from '../../verifier-worker/request.ts';
import { verifySignedRequest } from '../../wallet/vc/signed-request.ts';
import { newIdentity, signRaw, testResolver, type TestResolver } from '../support/agents.ts';

const TARGET = 'api.example.com';
const API = `https://${TARGET}`;
const LIST_URL = 'https://status.example.com/lists/1';

let platform: SigningIdentity;
let parentAgent: SigningIdentity;
let agent: SigningIdentity;
let stranger: SigningIdentity;
let resolver: TestResolver;
let root: AgentCredential;
let child: DelegatedAgentCredential;
let chain: [DelegatedAgentCredential, AgentCredential];

/** The test's clock (ms), shared by the verifier, the signer and the status list. */
let clock = Date.now();
let bits: StatusBitstring;
let list: unknown;

async function publishList(): Promise<void> {
  list = await signRaw(
    buildStatusListCredential({
      id: LIST_URL,
      issuer: platform.did,
      validFrom: new Date(clock - 1000),
      statusPurpose: 'revocation',
      encodedList: await encodeStatusList(bits),
    }),
    platform,
  );
}

beforeAll(async () => {
  platform = newIdentity();
  parentAgent = newIdentity();
  agent = newIdentity();
  stranger = newIdentity();
  resolver = testResolver();
  root = await issueAgentCredential({
    issuer: platform,
    agentDid: parentAgent.did,
    privilegeScopes: ['files'],
    delegationDepth: 1,
    domains: [TARGET],
    validUntil: new Date(clock + 365 * 86_400_000),
    credentialStatus: [
      buildStatusListEntry({ statusListCredential: LIST_URL, statusListIndex: 7, statusPurpose: 'revocation' }),
    ] as never,
  });
  child = await delegate(root, { delegator: parentAgent, delegateeDid: agent.did, scopes: ['files:read'] });
  chain = [child, root];
});

beforeEach(async () => {
  clock = Date.now();
  bits = createStatusList();
  await publishList();
});

/** A verifier (one options object: its caches live as long as it). */
function verifier(extra: Partial<VerifyRequestOptions> = {}): VerifyRequestOptions {
  const fetch = async () => new Response(JSON.stringify(list), { headers: { 'content-type': 'application/vc' } });
  return { trustedIssuers: [platform.did], target: TARGET, resolver, fetch, now: () => clock, ...extra };
}

interface Sent extends ChainedRequestOptions {
  path?: string;
  method?: string;
  body?: string;
  signer?: SigningIdentity;
}

/** A request signed by the leaf agent (its DID URL as keyid), naming the chain. */
function signed(sent: Sent = {}): Promise<Request> {
  const { path = '/files/1', method = 'GET', body, signer = agent, ...options } = sent;
  const request = new Request(API + path, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  return signChainedRequest(request, identityRequestSigner(signer), chain, { now: clock, ...options });
}

function expectDenied(verdict: RequestVerdict, status: number, reason: string): void {
  if (verdict.allowed) throw new Error(`expected ${status} ${reason}, but the request was allowed`);
  expect({ status: verdict.status, reason: verdict.body.reason }).toEqual({ status, reason });
  expect(verdict.body.message.length).toBeGreaterThan(0);
}

function expectAllowed(verdict: RequestVerdict): Extract<RequestVerdict, { allowed: true }> {
  if (!verdict.allowed) throw new Error(`refused: ${verdict.body.reason} ${verdict.body.message}`);
  return verdict;
}

/** The same request arriving somewhere else, or with another body: its headers as signed. */
function resent(request: Request, url: string, body?: string): Request {
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    ...(body === undefined ? {} : { body }),
  });
}

describe('a signed request bound to its chain', () => {
  it('is accepted with the chain in full, then by digest, with the same claims', async () => {
    const options = verifier({ requiredScopes: ['files:read'] });
    const first = expectAllowed(await verifyRequest(await signed(), options));
    expect(first.claims.agentDid).toBe(agent.did);
    expect(first.claims.effectiveScopes).toEqual(['files:read']);
    expect(first.claims.chain.map((link) => link.issuer)).toEqual([parentAgent.did, platform.did]);
    expect(first.claims.signature?.chainDigest).toBe(chainDigest(chain));
    expect(first.checks.map((c) => c.check)).toEqual([
      'signature',
      'dids',
      'credentials',
      'chain',
      'scopes',
      'status',
      'replay',
    ]);
    const later = expectAllowed(await verifyRequest(await signed({ byDigest: true }), options));
    expect(later.claims).toMatchObject({ agentDid: agent.did, effectiveScopes: ['files:read'] });
    // The credentials' signatures are vouched for: a later request costs its own signature.
    expect(later.claims.chain.map((link) => link.cached)).toEqual([true, true]);
    expect(later.claims.vpId).toBe(`signature:${later.claims.signature?.nonce}`);
  });

  it('accepts a POST whose body is the one signed, and a keyid that is the JWK thumbprint', async () => {
    const options = verifier();
    const post = await signed({ method: 'POST', body: '{"name":"report.txt"}' });
    expect(post.headers.get('content-digest')).toMatch(/^sha-256=:/);
    expectAllowed(await verifyRequest(post, options));
    const request = new Request(`${API}/files/1?v=2`);
    const byThumbprint = await signChainedRequest(request, requestSigner(agent.signer), chain, { now: clock });
    expectAllowed(await verifyRequest(byThumbprint, options));
  });

  it('forwards the claims as a presentation does, its nonce standing for the vpId', async () => {
    const verdict = expectAllowed(await verifyRequest(await signed(), verifier()));
    const forwarded = forwardClaims(await signed(), verdict.claims);
    expect(forwarded.headers.get('x-mandate-agent-did')).toBe(agent.did);
    expect(forwarded.headers.get('x-mandate-scopes')).toBe('files:read');
    expect(forwarded.headers.get('x-mandate-vp-id')).toBe(`signature:${verdict.claims.signature?.nonce}`);
  });
});

describe('refused, each with its reason code', () => {
  it('replayed: the same signed request twice (401 HTTP_SIGNATURE_REPLAYED)', async () => {
    const options = verifier();
    const request = await signed();
    expectAllowed(await verifyRequest(request.clone(), options));
    expectDenied(await verifyRequest(request, options), 401, 'HTTP_SIGNATURE_REPLAYED');
  });

  it('re-targeted: sent to another authority or another path (401 HTTP_SIGNATURE_INVALID)', async () => {
    const options = verifier();
    const request = await signed();
    expectDenied(
      await verifyRequest(resent(request, 'https://other.example.com/files/1'), options),
      401,
      'HTTP_SIGNATURE_INVALID',
    );
    expectDenied(await verifyRequest(resent(request, `${API}/files/2`), options), 401, 'HTTP_SIGNATURE_INVALID');
    expectDenied(
      await verifyRequest(resent(request, `${API}/files/1?all=1`), options),
      401,
      'HTTP_SIGNATURE_COMPONENT_NOT_COVERED',
    );
    // The original, untouched, still passes: nothing was spent by the refusals.
    expectAllowed(await verifyRequest(request, options));
  });

  it('with a changed body (401 CONTENT_DIGEST_MISMATCH)', async () => {
    const request = await signed({ method: 'POST', body: '{"amount":1}' });
    expectDenied(
      await verifyRequest(resent(request, request.url, '{"amount":100}'), verifier()),
      401,
      'CONTENT_DIGEST_MISMATCH',
    );
  });

  it('expired, or not yet valid (401 HTTP_SIGNATURE_EXPIRED, HTTP_SIGNATURE_NOT_YET_VALID)', async () => {
    const options = verifier();
    expectDenied(
      await verifyRequest(await signed({ now: clock - 10 * 60_000 }), options),
      401,
      'HTTP_SIGNATURE_EXPIRED',
    );
    expectDenied(
      await verifyRequest(await signed({ now: clock + 10 * 60_000 }), options),
      401,
      'HTTP_SIGNATURE_NOT_YET_VALID',
    );
  });

  it('signed by a key outside the chain, or by the chain but not its leaf (401 KEY_NOT_AUTHORIZED)', async () => {
    const options = verifier();
    expectDenied(await verifyRequest(await signed({ signer: stranger }), options), 401, 'KEY_NOT_AUTHORIZED');
    expectDenied(await verifyRequest(await signed({ signer: parentAgent }), options), 401, 'KEY_NOT_AUTHORIZED');
    const byThumbprint = await signChainedRequest(
      new Request(`${API}/files/1`),
      requestSigner(stranger.signer),
      chain,
      {
        now: clock,
      },
    );
    expectDenied(await verifyRequest(byThumbprint, options), 401, 'KEY_NOT_AUTHORIZED');
    // The leaf's DID URL as keyid, signed with another key: the signature does not verify.
    const lying = await signChainedRequest(
      new Request(`${API}/files/1`),
      requestSigner(stranger.signer, agent.verificationMethod),
      chain,
      { now: clock },
    );
    expectDenied(await verifyRequest(lying, options), 401, 'HTTP_SIGNATURE_INVALID');
  });

  it('naming a chain digest the verifier does not hold (401 CHAIN_UNKNOWN), accepted once sent in full', async () => {
    const options = verifier();
    expectDenied(await verifyRequest(await signed({ byDigest: true }), options), 401, 'CHAIN_UNKNOWN');
    expectAllowed(await verifyRequest(await signed(), options));
    expectAllowed(await verifyRequest(await signed({ byDigest: true }), options));
    // Another verifier holds nothing.
    expectDenied(await verifyRequest(await signed({ byDigest: true }), verifier()), 401, 'CHAIN_UNKNOWN');
  });

  it('its chain revoked after it was cached: refused by digest as soon as the list shows it (403 CREDENTIAL_REVOKED)', async () => {
    const options = verifier();
    expectAllowed(await verifyRequest(await signed(), options));
    expectAllowed(await verifyRequest(await signed({ byDigest: true }), options));
    setStatus(bits, 7, 1);
    clock += 6 * 60_000; // past the status list's 5-minute cache: the verifier reads it again
    await publishList();
    expectDenied(await verifyRequest(await signed({ byDigest: true }), options), 403, 'CREDENTIAL_REVOKED');
    expectDenied(await verifyRequest(await signed(), options), 403, 'CREDENTIAL_REVOKED');
  });

  it('a chain header the signature does not cover, or no nonce (401 HTTP_SIGNATURE_COMPONENT_NOT_COVERED, HTTP_SIGNATURE_PARAMS_INVALID)', async () => {
    const options = verifier();
    const uncovered = await signRequest(
      new Request(`${API}/files/1`, { headers: chainHeaders(chain).full }),
      identityRequestSigner(agent),
      { now: clock },
    );
    expectDenied(await verifyRequest(uncovered, options), 401, 'HTTP_SIGNATURE_COMPONENT_NOT_COVERED');
    expectDenied(await verifyRequest(await signed({ nonce: false }), options), 401, 'HTTP_SIGNATURE_PARAMS_INVALID');
  });

  it('malformed chain headers, a chain that is not one, a body too large to check (400 MALFORMED)', async () => {
    const options = verifier({ maxSignedBodyBytes: 16 });
    const both = await signed();
    both.headers.set(CHAIN_DIGEST_HEADER, chainDigest(chain));
    expectDenied(await verifyRequest(both, options), 400, 'MALFORMED');
    const badDigest = new Request(`${API}/files/1`, { headers: { [CHAIN_DIGEST_HEADER]: 'not-a-digest' } });
    expectDenied(await verifyRequest(badDigest, options), 400, 'MALFORMED');
    const notAChain = await signChainedRequest(
      new Request(`${API}/files/1`),
      identityRequestSigner(agent),
      [{ a: 1 }],
      {
        now: clock,
      },
    );
    expectDenied(await verifyRequest(notAChain, options), 400, 'MALFORMED');
    const large = await signed({ method: 'POST', body: JSON.stringify({ text: 'x'.repeat(64) }) });
    expectDenied(await verifyRequest(large, options), 400, 'MALFORMED');
  });

  it('beyond its authority: a route no rule allows, a scope it lacks, a target its domains do not cover (403)', async () => {
    const options = verifier({ requiredScopes: [{ path: '/files/*', scopes: ['files:read'] }] });
    expectDenied(await verifyRequest(await signed({ path: '/admin' }), options), 403, 'INSUFFICIENT_SCOPE');
    const writes = verifier({ requiredScopes: ['files:write'] });
    expectDenied(await verifyRequest(await signed(), writes), 403, 'INSUFFICIENT_SCOPE');
    const mail = verifier({ target: 'mail.example.com' });
    const request = await signChainedRequest(
      new Request('https://mail.example.com/inbox'),
      identityRequestSigner(agent),
      chain,
      {
        now: clock,
      },
    );
    expectDenied(await verifyRequest(request, mail), 403, 'TARGET_MISMATCH');
  });
});

describe('presentations beside signed requests', () => {
  it('still judges Authorization: VP as a presentation, whatever chain header comes with it', async () => {
    const options = verifier();
    const { challenge } = await issueChallenge(options);
    const vp = await signPresentation({ holder: agent, credentials: chain, challenge, domain: TARGET });
    const request = new Request(`${API}/files/1`, {
      headers: { authorization: encodePresentationHeader(vp), [CHAIN_HEADER]: 'ignored' },
    });
    const verdict = expectAllowed(await verifyRequest(request, options));
    expect(verdict.claims.vpId).toBe(vp.id);
    expect(verdict.claims.signature).toBeUndefined();
  });
});

describe('a body the adapter holds as bytes (the Node adapter: verifyRequestWithBody)', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it('judges Content-Digest on the bytes given, the Request carrying no body', async () => {
    const options = verifier();
    const post = await signed({ method: 'POST', body: '{"name":"report.txt"}' });
    const headersOnly = resent(post, post.url);
    expectAllowed(await verifyRequestWithBody(headersOnly, options, bytes('{"name":"report.txt"}')));
    const again = await signed({ method: 'POST', body: '{"amount":1}' });
    expectDenied(
      await verifyRequestWithBody(resent(again, again.url), options, bytes('{"amount":100}')),
      401,
      'CONTENT_DIGEST_MISMATCH',
    );
  });

  it('holds the bytes given to maxSignedBodyBytes (400 MALFORMED)', async () => {
    const text = JSON.stringify({ text: 'x'.repeat(64) });
    const large = await signed({ method: 'POST', body: text });
    const options = verifier({ maxSignedBodyBytes: 16 });
    expectDenied(await verifyRequestWithBody(resent(large, large.url), options, bytes(text)), 400, 'MALFORMED');
  });

  it('refuses a body option that is not bytes (INVALID_VERIFIER_OPTIONS)', async () => {
    const options = { trustedIssuers: [platform.did], expectedDomain: TARGET, resolver, body: 'text' as never };
    await expect(verifySignedRequest(await signed(), options)).rejects.toMatchObject({
      code: 'INVALID_VERIFIER_OPTIONS',
    });
  });
});
