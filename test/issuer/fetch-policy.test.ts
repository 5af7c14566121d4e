// What an anonymous caller can make the issuer fetch. A credential, presentation or status entry
// names the did:web and the status list URL, so in production the issuer must never connect to
// loopback, private or link-local addresses on a caller's behalf — however the host is spelled,
// and even when the issuer itself runs on a loopback API_BASE_URL (behind a local proxy).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { startTestIssuer, type TestIssuer } from '../support/issuer.ts';

let canary: Server;
let canaryPort: number;
let hits = 0;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  // A local service that must never hear from the issuer: it answers every path with a DID document's worth of JSON.
  canary = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  canaryPort = await listen(canary);
});
afterAll(() => new Promise((resolve) => canary.close(resolve)));

/** A production issuer behind a loopback API_BASE_URL (as behind a local reverse proxy). */
async function productionIssuer(extra: Record<string, string> = {}): Promise<TestIssuer> {
  const port = await freePort();
  const env = {
    NODE_ENV: 'production',
    API_BASE_URL: `http://127.0.0.1:${port}`,
    DID_METHOD: 'key',
    SERVICE_SIGNING_KEY: '9f1c4e7a2b8d05f36e91a4c7d2b58e0f13a6c9d4e7f0b2a58c1d6e93f4a7b20c',
    SERVICE_KEY_ENCRYPTION_KEY: '3a7e0c91f5d24b86a1e9c3f70d5b28e4c6a1f93d07b5e28c4f1a69d3e0b7c52f',
    ...extra,
  };
  return startTestIssuer(env, { port });
}

/** did:web spellings of this machine, each naming the canary's port. */
function loopbackDids(): string[] {
  const hosts = [
    '127.0.0.1',
    'localhost',
    '127.1',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.0.0.2',
    'localhost.',
    'canary.localhost',
    '0.0.0.0',
  ];
  return hosts.map((host) => `did:web:${host}%3A${canaryPort}`);
}

const signer = didKeyIdentity(seedSigner(generateSeed()));

/** Requests anyone may send, each making the issuer look up `did` (or, signed by a did:key, the status list at `listUrl`). */
async function probes(issuer: TestIssuer, did: string, listUrl: string): Promise<number[]> {
  const credential = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential'],
    issuer: did,
    credentialSubject: { id: signer.did },
    proof: {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      verificationMethod: `${did}#key-1`,
      proofPurpose: 'assertionMethod',
      proofValue: `z${'1'.repeat(87)}`,
    },
  };
  const withStatus = await createProof(
    {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential'],
      issuer: signer.did,
      credentialSubject: { id: signer.did },
      credentialStatus: {
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListIndex: '7',
        statusListCredential: listUrl,
      },
    },
    { signer: signer.signer, verificationMethod: signer.verificationMethod, proofPurpose: 'assertionMethod' },
  );
  const presentation = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiablePresentation'],
    holder: did,
    proof: { ...credential.proof, proofPurpose: 'authentication', challenge: 'c', domain: 'svc.example' },
  };
  const statuses: number[] = [];
  statuses.push((await issuer.call('/credentials/verify', { body: { verifiableCredential: credential } })).status);
  statuses.push((await issuer.call('/credentials/verify', { body: { verifiableCredential: withStatus } })).status);
  statuses.push(
    (
      await issuer.call('/presentations/verify', {
        body: { verifiablePresentation: presentation, options: { challenge: 'c', domain: 'svc.example' } },
      })
    ).status,
  );
  statuses.push(
    (
      await issuer.call('/v1/vp/verify', {
        body: {
          presentation: { ...presentation, id: `urn:uuid:${crypto.randomUUID()}` },
          expectedTarget: 'svc.example',
        },
      })
    ).status,
  );
  return statuses;
}

describe('the issuer as a fetcher of URLs others chose', () => {
  it('in production, with a loopback API_BASE_URL, never reaches a local port: 10 spellings of this machine, DIDs and status lists', async () => {
    const issuer = await productionIssuer();
    try {
      for (const did of loopbackDids()) {
        const host = did.slice('did:web:'.length, did.lastIndexOf('%3A'));
        for (const status of await probes(issuer, did, `http://${host}:${canaryPort}/list`))
          expect(status, did).toBeLessThan(500);
      }
      // The same over https, and through the [::1] and ::ffff: spellings of a status list URL.
      await probes(issuer, `did:web:127.0.0.1%3A${canaryPort}`, `https://127.0.0.1:${canaryPort}/list`);
      await probes(issuer, `did:web:127.0.0.1%3A${canaryPort}`, `http://[::ffff:127.0.0.1]:${canaryPort}/list`);
      expect(hits).toBe(0);
    } finally {
      await issuer.dispose();
    }
  });

  it.each([
    ['outside production (the probe above would see a fetch)', () => startTestIssuer()],
    [
      'in production with SERVICE_FETCH_PRIVATE_NETWORK=true, the documented way in',
      () => productionIssuer({ SERVICE_FETCH_PRIVATE_NETWORK: 'true' }),
    ],
  ])('%s, the same requests do reach a loopback did:web', async (_when, start) => {
    const issuer = await start();
    try {
      const before = hits;
      await probes(issuer, `did:web:127.0.0.1%3A${canaryPort}`, `http://127.0.0.1:${canaryPort}/list`);
      expect(hits).toBeGreaterThan(before);
    } finally {
      await issuer.dispose();
    }
  });
});
