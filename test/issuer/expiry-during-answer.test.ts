// A challenge that expires while its answer is being judged is not consumed by it. An answer's
// did:web DID is resolved over the network, so its host decides how long judging takes (up to
// the resolver's timeout): expiry is checked again by the single-use UPDATE itself. Here the
// host moves the issuer's clock past expiry while it serves the document.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { encodeBase58btc, encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import type { SigningIdentity } from '../../wallet/vc/identity.ts';
import { didAuthProof, mintToken, startTestIssuer, type TestIssuer } from '../support/issuer.ts';

let issuer: TestIssuer;
let host: Server;
let clock = Date.now();
/** What serving a DID document does to the issuer's clock (ms). */
let clockStepOnFetch = 0;
const documents = new Map<string, unknown>();

function webIdentity(name: string): SigningIdentity {
  const signer = seedSigner(generateSeed());
  const did = `did:web:127.0.0.1%3A${(host.address() as AddressInfo).port}:${name}`;
  const verificationMethod = `${did}#key-1`;
  documents.set(`/${name}/did.json`, {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [
      {
        id: verificationMethod,
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: encodePublicKeyMultibase(signer.publicKey),
      },
    ],
    authentication: [verificationMethod],
  });
  return { did, verificationMethod, signer };
}

beforeAll(async () => {
  host = createServer((req, res) => {
    clock += clockStepOnFetch;
    const document = documents.get(req.url ?? '');
    if (document === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/did+json' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  issuer = await startTestIssuer({}, { now: () => clock });
});
afterAll(async () => {
  await issuer.dispose();
  await new Promise((resolve) => host.close(resolve));
});

describe('expiry is checked again when a challenge is used up', () => {
  it('onboarding: an answer sent before expiry and judged after it is CHALLENGE_EXPIRED, and enrolls nobody', async () => {
    const agent = webIdentity(`agent-${crypto.randomUUID()}`);
    const token = await mintToken(issuer);
    const start = await issuer.call('/v1/onboard', { body: { token, custody: 'self', did: agent.did } });
    expect(start.status).toBe(201);
    const proof = await didAuthProof(agent, start.json.challenge, start.json.domain);
    clock = Date.parse(start.json.expiresAt) - 500; // sent half a second before expiry
    clockStepOnFetch = 2_500; // the DID document takes 2.5 s to arrive
    try {
      const done = await issuer.call('/v1/onboard/verify', { body: { challengeId: start.json.challengeId, proof } });
      expect(done.status).toBe(403);
      expect(done.json.error.code).toBe('CHALLENGE_EXPIRED');
    } finally {
      clockStepOnFetch = 0;
    }
    expect(await issuer.running.ctx.stores.agents.get(agent.did)).toBeUndefined();
    // The enrollment token was not spent on it: a fresh onboarding with it succeeds.
    const again = await issuer.call('/v1/onboard', { body: { token, custody: 'self', did: agent.did } });
    const retry = await issuer.call('/v1/onboard/verify', {
      body: {
        challengeId: again.json.challengeId,
        proof: await didAuthProof(agent, again.json.challenge, again.json.domain),
      },
    });
    expect(retry.status).toBe(201);
  });

  it('user challenge: an answer judged after expiry is CHALLENGE_EXPIRED and records no consent', async () => {
    const user = webIdentity(`user-${crypto.randomUUID()}`);
    const issued = await issuer.call('/v1/challenges', { body: { userDid: user.did } });
    expect(issued.status).toBe(201);
    const signature = encodeBase58btc(await user.signer.sign(utf8ToBytes(issued.json.challenge)));
    clock = Date.parse(issued.json.expiresAt) - 500;
    clockStepOnFetch = 2_500;
    try {
      const res = await issuer.call(`/v1/challenges/${issued.json.challengeId}/verify`, { body: { signature } });
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBe('CHALLENGE_EXPIRED');
    } finally {
      clockStepOnFetch = 0;
    }
    const row = await issuer.running.ctx.stores.challenges.get(issued.json.challengeId);
    expect(row).toBeDefined();
    expect(row?.usedAt).toBeUndefined();
    expect(
      (await issuer.running.ctx.audit.list({ event: 'CONSENT_VERIFIED' })).records.filter((r) =>
        JSON.stringify(r).includes(issued.json.challengeId),
      ),
    ).toEqual([]);
  });
});
