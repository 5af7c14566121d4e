// W3C VC-API endpoints against a real issuer: issue → verify round trip, tampering and
// revocation seen by /credentials/verify, and presentations with challenge and domain.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProof } from '../../../wallet/crypto/data-integrity.ts';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { createStatusList, setStatus } from '../../../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../../wallet/status/credential.ts';
import { encodeStatusList } from '../../../wallet/status/encoded-list.ts';
import { gzip } from '../../../wallet/status/gzip.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';
import { dbIssue, dbKeyPairFromSeed, dbSignPresentation, dbVerifyCredential } from '../../support/digitalbazaar.ts';
import { onboardServerAgent, startTestIssuer, type TestIssuer } from '../../support/issuer.ts';

let issuer: TestIssuer;
const holder = didKeyIdentity(seedSigner(generateSeed()));

function unsignedCredential(extra: Record<string, unknown> = {}) {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', { '@vocab': 'https://example.com/vocab#' }],
    type: ['VerifiableCredential', 'EmployeeCredential'],
    credentialSubject: { id: holder.did, role: 'auditor' },
    ...extra,
  };
}

async function issue(credential: unknown, admin = true) {
  return issuer.call('/credentials/issue', { admin, body: { credential } });
}

async function presentationOf(credentials: unknown[], challenge: string, domain: string) {
  return createProof(
    {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiablePresentation'],
      holder: holder.did,
      verifiableCredential: credentials,
    },
    {
      signer: holder.signer,
      verificationMethod: holder.verificationMethod,
      proofPurpose: 'authentication',
      challenge,
      domain,
    },
  );
}

beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

describe('POST /credentials/issue', () => {
  it('signs as this issuer (eddsa-jcs-2022, assertionMethod), filling issuer and id, adding no validFrom', async () => {
    const res = await issue(unsignedCredential());
    expect(res.status).toBe(201);
    const vc = res.json.verifiableCredential;
    expect(vc.issuer).toBe(issuer.running.ctx.issuer.did);
    expect(vc.id).toMatch(/^urn:uuid:/);
    expect(vc.validFrom).toBeUndefined(); // optional (VC DM 2.0 §4.9): valid from whenever
    expect(vc.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      proofPurpose: 'assertionMethod',
      verificationMethod: issuer.running.ctx.issuer.verificationMethod,
    });
  });

  it('issues as itself whatever issuer the request names (VC DM 2.0 §4.7), keeping its other members', async () => {
    const foreign = await issue(unsignedCredential({ issuer: 'did:web:someone-else.example' }));
    expect(foreign.status).toBe(201);
    expect(foreign.json.verifiableCredential.issuer).toBe(issuer.running.ctx.issuer.did);
    const named = await issue(unsignedCredential({ issuer: { id: 'did:example:issuer', name: 'Example University' } }));
    expect(named.json.verifiableCredential.issuer).toEqual({
      id: issuer.running.ctx.issuer.did,
      name: 'Example University',
    });
    // But what it names must be an issuer: a URL, or an object whose id is one.
    for (const bad of ['fake-issuer', null, { id: null }, { id: 'fake-issuer' }, { name: 'no id' }]) {
      const res = await issue(unsignedCredential({ issuer: bad }));
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.error.code, JSON.stringify(bad)).toBe('CREDENTIAL_INVALID');
    }
  });

  it('refuses Mandate authority types (422 CREDENTIAL_TYPE_RESERVED) and non-credentials (400)', async () => {
    const reserved = await issue(unsignedCredential({ type: ['VerifiableCredential', 'AgentCredential'] }));
    expect(reserved.status).toBe(422);
    expect(reserved.json.error.code).toBe('CREDENTIAL_TYPE_RESERVED');
    const notVc = await issue({
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiableCredential'],
      credentialSubject: {},
    });
    expect(notVc.status).toBe(400);
    expect(notVc.json.error.code).toBe('CREDENTIAL_INVALID');
    const signedAlready = await issue(unsignedCredential({ proof: { type: 'DataIntegrityProof' } }));
    expect(signedAlready.json.error.code).toBe('CREDENTIAL_INVALID');
    let deep: Record<string, unknown> = { id: holder.did };
    for (let i = 0; i < 40; i++) deep = { nested: deep };
    const tooDeep = await issue(unsignedCredential({ credentialSubject: deep }));
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.json.error.code).toBe('CREDENTIAL_INVALID');
  });

  it.each([
    ['a date-only validFrom', { validFrom: '2024-01-01' }],
    ['validUntil "tomorrow"', { validUntil: 'tomorrow' }],
    ['validUntil before validFrom', { validFrom: '2030-01-01T00:00:00Z', validUntil: '2029-01-01T00:00:00Z' }],
    ['an id that is not a URL', { id: 'not a url' }],
    ['a @context entry that is neither URL nor object', { '@context': ['https://www.w3.org/ns/credentials/v2', 42] }],
    ['a credentialStatus without type', { credentialStatus: { id: 'https://status.example.com/1#5' } }],
  ])(
    'refuses to sign a credential that breaks VC DM 2.0: %s (400 CREDENTIAL_INVALID, nothing audited)',
    async (_name, extra) => {
      const before = (await issuer.running.ctx.audit.list({ event: 'VC_API_ISSUED', limit: 500 })).records.length;
      const res = await issue(unsignedCredential(extra));
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('CREDENTIAL_INVALID');
      expect((await issuer.running.ctx.audit.list({ event: 'VC_API_ISSUED', limit: 500 })).records.length).toBe(before);
    },
  );

  it('is an operator act (401 without the admin key)', async () => {
    const res = await issue(unsignedCredential(), false);
    expect(res.status).toBe(401);
  });
});

describe('POST /credentials/verify', () => {
  it('round trip: an issued credential verifies; a tampered one does not (400 with VC-API and standard error members)', async () => {
    const vc = (await issue(unsignedCredential())).json.verifiableCredential;
    const ok = await issuer.call('/credentials/verify', { body: { verifiableCredential: vc } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ verified: true, checks: ['proof', 'validity', 'status'], warnings: [], errors: [] });
    const tampered = await issuer.call('/credentials/verify', {
      body: { verifiableCredential: { ...vc, credentialSubject: { id: holder.did, role: 'admin' } } },
    });
    expect(tampered.status).toBe(400);
    expect(tampered.json.verified).toBe(false);
    expect(tampered.json.errors[0]).toMatchObject({ check: 'proof', code: 'PROOF_SIGNATURE_INVALID' });
    expect(tampered.json.error.code).toBe('NOT_VERIFIED');
  });

  it('reports expiry and a malformed credential', async () => {
    const expired = (
      await issue(unsignedCredential({ validFrom: '2020-01-01T00:00:00Z', validUntil: '2021-01-01T00:00:00Z' }))
    ).json.verifiableCredential;
    const res = await issuer.call('/credentials/verify', { body: { verifiableCredential: expired } });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([expect.objectContaining({ check: 'validity', code: 'CREDENTIAL_EXPIRED' })]);
    const malformed = await issuer.call('/credentials/verify', { body: { verifiableCredential: { type: 'nothing' } } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.errors[0].code).toBe('MALFORMED');
    // URLs that only start like a DID (DID Core §3.1) are not resolved at all.
    for (const notDid of ['did:example:a:', 'did:example:%zz', 'did:Example:a']) {
      const res = await issuer.call('/credentials/verify', {
        body: { verifiableCredential: { ...expired, issuer: notDid } },
      });
      expect(res.json.errors, notDid).toEqual([{ check: 'shape', code: 'MALFORMED', message: 'issuer must be a DID' }]);
    }
    expect((await issuer.call('/credentials/verify', { body: {} })).json.error.code).toBe('VALIDATION_FAILED');
  });

  it('checks status lists: a Mandate credential verifies until it is revoked', async () => {
    const { vcId, verifiableCredential } = await onboardServerAgent(issuer);
    const before = await issuer.call('/credentials/verify', { body: { verifiableCredential } });
    expect(before.status).toBe(200);
    expect(before.json.checks).toEqual(['proof', 'validity', 'status']);
    await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/revoke`, { admin: true, body: {} });
    const after = await issuer.call('/credentials/verify', { body: { verifiableCredential } });
    expect(after.status).toBe(400);
    expect(after.json.errors).toEqual([expect.objectContaining({ check: 'status', code: 'CREDENTIAL_REVOKED' })]);
  });

  it('fetches no status list for a credential whose proof fails, and refuses more than 4 entries', async () => {
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListIndex: String(i),
        statusListCredential: `https://status-${i}.example.com/list`,
      }));
    // Unsigned in effect: a proof by a stranger's key, with many status URLs to make us fetch.
    const stranger = didKeyIdentity(seedSigner(generateSeed()));
    const forged = await createProof(
      {
        ...unsignedCredential(),
        issuer: issuer.running.ctx.issuer.did,
        validFrom: '2026-01-01T00:00:00Z',
        credentialStatus: entries(3),
      },
      { signer: stranger.signer, verificationMethod: stranger.verificationMethod, proofPurpose: 'assertionMethod' },
    );
    const refused = await issuer.call('/credentials/verify', { body: { verifiableCredential: forged } });
    expect(refused.json.checks).not.toContain('status');
    expect(refused.json.errors.map((e: { check: string }) => e.check)).toEqual(['proof']);
    // Signed by a key of its own issuer, but with five entries: refused before any fetch.
    const selfIssued = await createProof(
      {
        ...unsignedCredential(),
        issuer: stranger.did,
        validFrom: '2026-01-01T00:00:00Z',
        credentialStatus: entries(5),
      },
      { signer: stranger.signer, verificationMethod: stranger.verificationMethod, proofPurpose: 'assertionMethod' },
    );
    const tooMany = await issuer.call('/credentials/verify', { body: { verifiableCredential: selfIssued } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.errors).toEqual([expect.objectContaining({ check: 'status', code: 'MALFORMED' })]);
  });

  it('reports a signed credential that breaks VC DM 2.0 as MALFORMED, whoever signed it', async () => {
    const signer = didKeyIdentity(seedSigner(generateSeed()));
    for (const extra of [{ id: 'not a url' }, { '@context': ['https://www.w3.org/ns/credentials/v2', 42] }]) {
      const signed = await createProof(
        { ...unsignedCredential(), issuer: signer.did, validFrom: '2026-01-01T00:00:00Z', ...extra },
        { signer: signer.signer, verificationMethod: signer.verificationMethod, proofPurpose: 'assertionMethod' },
      );
      const res = await issuer.call('/credentials/verify', { body: { verifiableCredential: signed } });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        verified: false,
        errors: [expect.objectContaining({ check: 'shape', code: 'MALFORMED' })],
      });
    }
  });

  it("refuses a credential signed with a key that is not its issuer's", async () => {
    const stranger = didKeyIdentity(seedSigner(generateSeed()));
    const forged = await createProof(
      { ...unsignedCredential(), issuer: issuer.running.ctx.issuer.did, validFrom: '2026-01-01T00:00:00Z' },
      { signer: stranger.signer, verificationMethod: stranger.verificationMethod, proofPurpose: 'assertionMethod' },
    );
    const res = await issuer.call('/credentials/verify', { body: { verifiableCredential: forged } });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].code).toBe('KEY_NOT_AUTHORIZED');
  });
});

describe('POST /presentations/verify', () => {
  it('verifies the holder proof with challenge and domain, and every credential inside', async () => {
    const vc = (await issue(unsignedCredential())).json.verifiableCredential;
    const vp = await presentationOf([vc], 'nonce-42', 'verifier.example');
    const res = await issuer.call('/presentations/verify', {
      body: { verifiablePresentation: vp, options: { challenge: 'nonce-42', domain: 'verifier.example' } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      verified: true,
      presentationResult: { verified: true },
      checks: ['proof', 'credentials'],
    });
    expect(res.json.credentialResults).toHaveLength(1);
  });

  it('refuses a wrong challenge or domain, and reports a bad credential inside', async () => {
    const vc = (await issue(unsignedCredential())).json.verifiableCredential;
    const vp = await presentationOf([vc], 'nonce-42', 'verifier.example');
    const challenge = await issuer.call('/presentations/verify', {
      body: { verifiablePresentation: vp, options: { challenge: 'other' } },
    });
    expect(challenge.status).toBe(400);
    expect(challenge.json.errors[0]).toMatchObject({ check: 'proof', code: 'CHALLENGE_MISMATCH' });
    const domain = await issuer.call('/presentations/verify', {
      body: { verifiablePresentation: vp, options: { domain: 'elsewhere.example' } },
    });
    expect(domain.json.errors[0].code).toBe('DOMAIN_MISMATCH');
    const withBad = await presentationOf(
      [{ ...vc, credentialSubject: { id: holder.did, role: 'admin' } }],
      'n',
      'verifier.example',
    );
    const bad = await issuer.call('/presentations/verify', {
      body: { verifiablePresentation: withBad, options: { challenge: 'n' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.presentationResult.verified).toBe(true);
    expect(bad.json.credentialResults[0].verified).toBe(false);
    const notVp = await issuer.call('/presentations/verify', { body: { verifiablePresentation: { type: 'x' } } });
    expect(notVp.status).toBe(400);
    expect(notVp.json.errors[0].code).toBe('MALFORMED');
  });

  it('looks inside no presentation whose proof fails, and checks at most 4 status entries per request', async () => {
    let fetched = 0;
    const lists = createServer((_req, res) => {
      fetched++;
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => lists.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(lists.address() as AddressInfo).port}`;
      // Self-issued credentials, each naming two lists (its issuer's key signs: a proof that verifies).
      const credentials = await Promise.all(
        [0, 1, 2].map((c) =>
          createProof(
            {
              ...unsignedCredential(),
              issuer: holder.did,
              validFrom: '2026-01-01T00:00:00Z',
              credentialStatus: [0, 1].map((e) => ({
                type: 'BitstringStatusListEntry',
                statusPurpose: 'revocation',
                statusListIndex: '7',
                statusListCredential: `${base}/list-${c}-${e}`,
              })),
            },
            { signer: holder.signer, verificationMethod: holder.verificationMethod, proofPurpose: 'assertionMethod' },
          ),
        ),
      );
      const vp = await presentationOf(credentials, 'n-fanout', 'verifier.example');
      const wrongChallenge = await issuer.call('/presentations/verify', {
        body: { verifiablePresentation: vp, options: { challenge: 'other' } },
      });
      expect(wrongChallenge.json).toMatchObject({
        verified: false,
        presentationResult: { verified: false },
        credentialResults: [],
      });
      expect(fetched).toBe(0);
      const res = await issuer.call('/presentations/verify', {
        body: { verifiablePresentation: vp, options: { challenge: 'n-fanout' } },
      });
      expect(res.json.presentationResult.verified).toBe(true);
      expect(fetched).toBe(4);
      const overBudget = (
        res.json.credentialResults as Array<{ errors: Array<{ check: string; code: string }> }>
      ).filter((r) =>
        r.errors.some(
          (e) =>
            e.check === 'status' &&
            e.code === 'STATUS_UNAVAILABLE' &&
            /not checked/.test((e as { message?: string }).message ?? ''),
        ),
      );
      expect(overBudget).toHaveLength(1);
    } finally {
      lists.close();
    }
  });
});

describe('POST /credentials/verify: status processing errors (Bitstring Status List §3.5)', () => {
  it('names each error as §3.5 does, with its problem type; a set message bit is a warning, not a failure', async () => {
    const bodies = new Map<string, string>();
    const lists = createServer((req, res) => {
      const body = bodies.get(req.url ?? '');
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/vc' }).end(body);
    });
    await new Promise<void>((resolve) => lists.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(lists.address() as AddressInfo).port}`;
    try {
      const publish = async (
        path: string,
        purpose: string,
        edit: (list: ReturnType<typeof createStatusList>) => void = () => undefined,
        encodedList?: string,
      ) => {
        const list = createStatusList();
        edit(list);
        const unsigned = buildStatusListCredential({
          id: base + path,
          issuer: holder.did,
          validFrom: '2026-01-01T00:00:00Z',
          statusPurpose: purpose,
          encodedList: encodedList ?? (await encodeStatusList(list)),
        });
        const signed = (await createProof(unsigned, {
          signer: holder.signer,
          verificationMethod: holder.verificationMethod,
          proofPurpose: 'assertionMethod',
        })) as Record<string, unknown>;
        bodies.set(path, JSON.stringify(signed));
        return signed;
      };
      await publish('/revocation', 'revocation');
      await publish('/suspension', 'suspension');
      const tampered = await publish('/tampered', 'revocation');
      bodies.set(
        '/tampered',
        JSON.stringify({ ...tampered, credentialSubject: { ...(tampered.credentialSubject as object), ttl: 1 } }),
      );
      await publish('/short', 'revocation', undefined, `u${bytesToBase64url(await gzip(new Uint8Array(1024)))}`);
      await publish('/message', 'message', (list) => setStatus(list, 5, 1));

      const verdict = async (path: string, index: number, purpose = 'revocation') => {
        const vc = await createProof(
          {
            ...unsignedCredential(),
            issuer: holder.did,
            validFrom: '2026-01-01T00:00:00Z',
            credentialStatus: [
              buildStatusListEntry({
                statusListCredential: base + path,
                statusListIndex: index,
                statusPurpose: purpose,
              }),
            ],
          },
          { signer: holder.signer, verificationMethod: holder.verificationMethod, proofPurpose: 'assertionMethod' },
        );
        return (await issuer.call('/credentials/verify', { body: { verifiableCredential: vc } })).json;
      };
      const cases: Array<[string, number, string | undefined, string]> = [
        ['/missing', 1, undefined, 'STATUS_RETRIEVAL_ERROR'],
        ['/tampered', 1, undefined, 'STATUS_VERIFICATION_ERROR'],
        ['/suspension', 1, 'revocation', 'STATUS_VERIFICATION_ERROR'],
        ['/short', 1, undefined, 'STATUS_LIST_LENGTH_ERROR'],
        ['/revocation', 200_000, undefined, 'RANGE_ERROR'],
      ];
      for (const [path, index, purpose, name] of cases) {
        const result = await verdict(path, index, purpose);
        expect(result.verified, path).toBe(false);
        expect(result.errors, path).toEqual([
          {
            check: 'status',
            code: name,
            type: `https://www.w3.org/ns/credentials/status-list#${name}`,
            message: expect.any(String),
          },
        ]);
      }
      const message = await verdict('/message', 5, 'message');
      expect(message).toMatchObject({
        verified: true,
        errors: [],
        warnings: [{ check: 'status', code: 'STATUS_SET', message: expect.stringMatching(/message status is 1/) }],
      });
    } finally {
      lists.close();
    }
  });
});

describe('what other implementations send: VC DM 1.1, eddsa-rdfc-2022 (Digital Bazaar signs)', () => {
  const V1 = 'https://www.w3.org/2018/credentials/v1';
  const DI_V2 = 'https://w3id.org/security/data-integrity/v2';
  let key: Awaited<ReturnType<typeof dbKeyPairFromSeed>>;
  let did: string;
  beforeAll(async () => {
    const seed = generateSeed();
    key = await dbKeyPairFromSeed(seed);
    did = didKeyIdentity(seedSigner(seed)).did;
  });
  const v11 = (extra: Record<string, unknown> = {}) => ({
    '@context': [V1, DI_V2],
    id: `urn:uuid:${crypto.randomUUID()}`,
    type: ['VerifiableCredential'],
    issuer: did,
    issuanceDate: '2024-01-01T00:00:00Z',
    credentialSubject: { id: holder.did },
    ...extra,
  });

  it.each(['eddsa-jcs-2022', 'eddsa-rdfc-2022'] as const)(
    'verifies a VC 1.1 credential secured with %s; a changed one, or one past its expirationDate, fails',
    async (cryptosuite) => {
      const signed = await dbIssue(v11(), key, { cryptosuite });
      const ok = await issuer.call('/credentials/verify', { body: { verifiableCredential: signed } });
      expect(ok.status, JSON.stringify(ok.json)).toBe(200);
      const changed = await issuer.call('/credentials/verify', {
        body: { verifiableCredential: { ...signed, credentialSubject: { id: did } } },
      });
      expect(changed.json.errors[0]).toMatchObject({ check: 'proof', code: 'PROOF_SIGNATURE_INVALID' });
      const expired = await issuer.call('/credentials/verify', {
        body: {
          verifiableCredential: await dbIssue(v11({ expirationDate: '2024-06-01T00:00:00Z' }), key, { cryptosuite }),
        },
      });
      expect(expired.json.errors).toEqual([expect.objectContaining({ check: 'validity', code: 'CREDENTIAL_EXPIRED' })]);
      const early = await issuer.call('/credentials/verify', {
        body: {
          verifiableCredential: await dbIssue(v11({ issuanceDate: '2099-01-01T00:00:00Z' }), key, { cryptosuite }),
        },
      });
      expect(early.json.errors).toEqual([
        expect.objectContaining({ check: 'validity', code: 'CREDENTIAL_NOT_YET_VALID' }),
      ]);
    },
  );

  it('refuses a VC 1.1 credential without issuanceDate, and one with a term its contexts do not define', async () => {
    const { issuanceDate: _date, ...undated } = v11();
    const res = await issuer.call('/credentials/verify', {
      body: { verifiableCredential: { ...undated, proof: { type: 'DataIntegrityProof' } } },
    });
    expect(res.json.errors[0]).toMatchObject({
      check: 'shape',
      code: 'MALFORMED',
      message: expect.stringMatching(/issuanceDate is required/),
    });
    const undefinedTerm = await dbIssue(v11(), key, { cryptosuite: 'eddsa-jcs-2022' });
    const refused = await issuer.call('/credentials/verify', {
      body: { verifiableCredential: { ...undefinedTerm, favouriteColour: 'blue' } },
    });
    expect(refused.json.errors[0]).toMatchObject({ check: 'shape', code: 'MALFORMED', rule: 'JSONLD_UNDEFINED_TERM' });
  });

  it.each(['eddsa-jcs-2022', 'eddsa-rdfc-2022'] as const)(
    'issues a VC 1.1 credential with %s: held to VC DM 1.1, the Data Integrity context appended, no status entry',
    async (cryptosuite) => {
      const { issuer: _issuer, ...unsigned } = v11({ '@context': [V1] });
      const options = cryptosuite === 'eddsa-rdfc-2022' ? { cryptosuite } : {};
      const res = await issuer.call('/credentials/issue', { admin: true, body: { credential: unsigned, options } });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      const vc = res.json.verifiableCredential;
      expect(vc['@context']).toEqual([V1, DI_V2]);
      expect(vc.issuer).toBe(issuer.running.ctx.issuer.did);
      expect(vc.credentialStatus).toBeUndefined();
      expect(vc.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite });
      const verified = await issuer.call('/credentials/verify', { body: { verifiableCredential: vc } });
      expect(verified.status, JSON.stringify(verified.json)).toBe(200);
      const { issuanceDate: _date, ...undated } = unsigned;
      const refused = await issuer.call('/credentials/issue', { admin: true, body: { credential: undated, options } });
      expect(refused.status).toBe(400);
      expect(refused.json.error.message).toMatch(/issuanceDate is required/);
      const withStatus = await issuer.call('/credentials/issue', {
        admin: true,
        body: {
          credential: unsigned,
          options: { ...options, credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' } },
        },
      });
      expect(withStatus.status).toBe(400);
      expect(withStatus.json.error.message).toMatch(/VC 1\.1 credential cannot carry a BitstringStatusListEntry/);
    },
  );

  it('a proof set may hold a proof by another DID (a witness), checked against that DID, only beside one by the issuer', async () => {
    const witnessSeed = generateSeed();
    const witness = await dbKeyPairFromSeed(witnessSeed);
    const witnessDid = didKeyIdentity(seedSigner(witnessSeed)).did;
    const unsigned = v11();
    const [byIssuer, byWitness, byWitnessAgain] = await Promise.all([
      dbIssue(unsigned, key, { cryptosuite: 'eddsa-rdfc-2022' }),
      dbIssue(unsigned, witness, { cryptosuite: 'eddsa-rdfc-2022' }),
      dbIssue(unsigned, witness, { cryptosuite: 'eddsa-rdfc-2022', created: '2024-01-01T00:00:00Z' }),
    ]);
    const verify = (proof: unknown) =>
      issuer.call('/credentials/verify', { body: { verifiableCredential: { ...byIssuer, proof } } });
    const both = await verify([byWitness.proof, byIssuer.proof]);
    expect(both.status, JSON.stringify(both.json)).toBe(200);
    // Without the issuer's proof the witness's proves nothing about the issuer: refused, its DID unresolved.
    const alone = await verify([byWitness.proof, byWitnessAgain.proof]);
    expect(alone.json.errors[0]).toMatchObject({ check: 'proof', code: 'KEY_NOT_AUTHORIZED' });
    expect(alone.json.errors[0].message).toContain(witnessDid);
    // Every proof of the set must verify, the witness's included.
    const forged = { ...byWitness.proof, created: '2024-01-01T00:00:00Z' };
    const bad = await verify([byIssuer.proof, forged]);
    expect(bad.json.errors[0]).toMatchObject({ check: 'proof', code: 'PROOF_SIGNATURE_INVALID' });
  });

  it('verifies a presentation Digital Bazaar signed with eddsa-rdfc-2022, holding a VC 2.0 and a VC 1.1 credential', async () => {
    const v2 = await dbIssue(
      {
        '@context': ['https://www.w3.org/ns/credentials/v2'],
        type: ['VerifiableCredential'],
        issuer: did,
        credentialSubject: { id: holder.did },
      },
      key,
      { cryptosuite: 'eddsa-rdfc-2022' },
    );
    const vp = await dbSignPresentation(
      {
        '@context': ['https://www.w3.org/ns/credentials/v2'],
        type: ['VerifiablePresentation'],
        holder: did,
        verifiableCredential: [v2, await dbIssue(v11(), key, { cryptosuite: 'eddsa-rdfc-2022' })],
      },
      key,
      { challenge: 'c-db', domain: 'verifier.example', cryptosuite: 'eddsa-rdfc-2022' },
    );
    const res = await issuer.call('/presentations/verify', {
      body: { verifiablePresentation: vp, options: { challenge: 'c-db', domain: 'verifier.example' } },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.credentialResults.map((r: { verified: boolean }) => r.verified)).toEqual([true, true]);
    const wrongDomain = await issuer.call('/presentations/verify', {
      body: { verifiablePresentation: vp, options: { challenge: 'c-db', domain: 'other.example' } },
    });
    expect(wrongDomain.json.errors[0]).toMatchObject({ check: 'proof', code: 'DOMAIN_MISMATCH' });
  });

  it('issues with eddsa-rdfc-2022 on request, and Digital Bazaar verifies what it issued', async () => {
    // A did:key issuer, which Digital Bazaar's offline loader resolves.
    const keyIssuer = await startTestIssuer({ DID_METHOD: 'key' });
    try {
      const credential = {
        '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
        type: ['VerifiableCredential'],
        credentialSubject: { id: holder.did, role: 'auditor' },
      };
      const issued = (
        await keyIssuer.call('/credentials/issue', {
          admin: true,
          body: { credential, options: { cryptosuite: 'eddsa-rdfc-2022' } },
        })
      ).json.verifiableCredential;
      expect(issued.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022' });
      expect((await keyIssuer.call('/credentials/verify', { body: { verifiableCredential: issued } })).status).toBe(
        200,
      );
      const db = await dbVerifyCredential(issued, {
        cryptosuite: 'eddsa-rdfc-2022',
        checkStatus: async () => ({ verified: true }),
      });
      expect(db.verified, db.error?.message).toBe(true);
      const changed = await dbVerifyCredential(
        { ...issued, credentialSubject: { id: holder.did, role: 'admin' } },
        { cryptosuite: 'eddsa-rdfc-2022', checkStatus: async () => ({ verified: true }) },
      );
      expect(changed.verified).toBe(false);
    } finally {
      await keyIssuer.dispose();
    }
  });
});

describe('documents reach the VC-API verifier exactly as received', () => {
  it('a signed credential or presentation with an unsigned "__proto__" member is not verified', async () => {
    const vc = (await issue(unsignedCredential())).json.verifiableCredential;
    // JSON.parse keeps "__proto__" as an own member; a rebuilt copy would lose it and verify.
    const credentialBody = `{"verifiableCredential":{"__proto__":{"admin":true},${JSON.stringify(vc).slice(1)}}`;
    const credential = await issuer.fetch(`${issuer.url}/credentials/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: credentialBody,
    });
    expect(credential.status).toBe(400);
    expect(((await credential.json()) as { verified: boolean }).verified).toBe(false);
    const vp = await presentationOf([vc], 'c-proto', 'verifier.example');
    const presentationBody = `{"verifiablePresentation":{"__proto__":{"admin":true},${JSON.stringify(vp).slice(1)},"options":{"challenge":"c-proto","domain":"verifier.example"}}`;
    const presentation = await issuer.fetch(`${issuer.url}/presentations/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: presentationBody,
    });
    expect(presentation.status).toBe(400);
    // Without it, both verify: the refusal was for that member alone.
    expect((await issuer.call('/credentials/verify', { body: { verifiableCredential: vc } })).status).toBe(200);
    expect(
      (
        await issuer.call('/presentations/verify', {
          body: { verifiablePresentation: vp, options: { challenge: 'c-proto', domain: 'verifier.example' } },
        })
      ).status,
    ).toBe(200);
  });
});
