// The agent wallet and IssuerClient against a REAL issuer (ephemeral port, temp SQLite): one-call
// onboarding in both custody modes, presenting and verifying, revocation taking effect,
// delegation (self and server custody), session tokens checked offline, the operator calls,
// and the API's error codes arriving as typed errors.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileCredentialStore } from '../../wallet/client/credential-store-file.ts';
import { createMemoryCredentialStore } from '../../wallet/client/credential-store.ts';
import { IssuerApiError } from '../../wallet/client/errors.ts';
import { IssuerClient } from '../../wallet/client/issuer-client.ts';
import { verifySessionToken } from '../../wallet/client/session-token.ts';
import { createMemoryKeyStore } from '../../wallet/keystore/index.ts';
import { createFileKeyStore } from '../../wallet/keystore/node.ts';
import { Wallet } from '../../wallet/wallet.ts';
import { startTestIssuer, TEST_ADMIN_KEY, type TestIssuer } from '../support/issuer.ts';

const TARGET = 'files.example.com';
const code = (c: string) => expect.objectContaining({ code: c });
let issuer: TestIssuer;
let operator: IssuerClient;
let anonymous: IssuerClient;
const dirs: string[] = [];

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-wallet-'));
  dirs.push(dir);
  return dir;
};
const memoryWallet = () =>
  Wallet.open({ keyStore: createMemoryKeyStore(), credentialStore: createMemoryCredentialStore() });
const fileWallet = (dir: string) =>
  Wallet.open({
    keyStore: createFileKeyStore({ directory: join(dir, 'keys') }),
    credentialStore: createFileCredentialStore({ path: join(dir, 'credentials.json') }),
  });
const token = async (): Promise<string> =>
  (
    await operator.mintEnrollmentToken({
      requestedScopes: ['files:read', 'files:write'],
      maxDelegationDepth: 2,
      requestedDomains: [TARGET],
    })
  ).token;

beforeAll(async () => {
  issuer = await startTestIssuer();
  operator = new IssuerClient({ baseUrl: issuer.url, adminKey: TEST_ADMIN_KEY });
  anonymous = new IssuerClient({ baseUrl: issuer.url });
});
afterAll(async () => {
  await issuer.dispose();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('onboarding, presenting, revoking', () => {
  it("self custody: one call enrolls the wallet's own DID and stores its credential; the presentation verifies until revoked", async () => {
    const wallet = await memoryWallet();
    const enrolled = await anonymous.onboard(await token(), { custody: 'self', wallet });
    expect(enrolled).toMatchObject({
      agentDid: wallet.did,
      custody: 'self',
      vcId: expect.stringMatching(/^urn:uuid:/),
    });
    expect((await wallet.credentials()).map((c) => c.id)).toEqual([enrolled.vcId]);

    const vp = await wallet.present({ target: TARGET, challenge: 'nonce-self-1', scopes: ['files:read'] });
    expect(
      await anonymous.verify(vp, { target: TARGET, challenge: 'nonce-self-1', requiredScopes: ['files:read'] }),
    ).toEqual({
      valid: true,
      agentDid: wallet.did,
      privilegeScopes: ['files:read', 'files:write'],
      effectiveScopes: ['files:read', 'files:write'],
      vpId: vp.id,
      target: TARGET,
    });

    expect(await operator.revoke(enrolled.vcId, { reason: 'test' })).toMatchObject({
      vcId: enrolled.vcId,
      state: 'revoked',
    });
    const after = await wallet.present({ target: TARGET, challenge: 'nonce-self-2' });
    expect(await anonymous.verify(after, { target: TARGET, challenge: 'nonce-self-2' })).toMatchObject({
      valid: false,
      reason: 'CREDENTIAL_REVOKED',
      failedCheck: 'status',
      vpId: after.id,
    });
    // Revoking again is not an error: the end state holds.
    expect(await operator.revoke(enrolled.vcId)).toMatchObject({ state: 'revoked', alreadyRevoked: true });
  });

  it('server custody: one call returns {agentDid, vcId}; the issuer signs the presentation; revoked → CREDENTIAL_REVOKED', async () => {
    const enrolled = await anonymous.onboard(await token(), { custody: 'server' });
    expect(enrolled.agentDid).toMatch(/^did:web:127\.0\.0\.1%3A\d+:agents:/);
    expect(enrolled.verifiableCredential.credentialSubject.id).toBe(enrolled.agentDid);
    const vp = await operator.requestVp(enrolled.agentDid, { target: TARGET, challenge: 'nonce-server-1' });
    expect(vp.holder).toBe(enrolled.agentDid);
    expect(await anonymous.verify(vp, { target: TARGET, challenge: 'nonce-server-1' })).toMatchObject({
      valid: true,
      agentDid: enrolled.agentDid,
    });
    // The same presentation again is a replay: denied, as a value.
    expect(await anonymous.verify(vp, { target: TARGET, challenge: 'nonce-server-1' })).toMatchObject({
      valid: false,
      reason: 'REPLAYED',
    });

    const signedBefore = await operator.requestVp(enrolled.agentDid, { target: TARGET, challenge: 'nonce-server-2' });
    await operator.revoke(enrolled.vcId);
    expect(await anonymous.verify(signedBefore, { target: TARGET, challenge: 'nonce-server-2' })).toMatchObject({
      valid: false,
      reason: 'CREDENTIAL_REVOKED',
    });
  });

  it('self-custody keys and credentials persist across a wallet restart (file stores): same DID, still presents', async () => {
    const dir = tempDir();
    const first = await fileWallet(dir);
    const enrolled = await anonymous.onboard(await token(), { custody: 'self', wallet: first });

    const restarted = await fileWallet(dir); // a new process would do exactly this
    expect(restarted.did).toBe(first.did);
    expect((await restarted.credentials()).map((c) => c.id)).toEqual([enrolled.vcId]);
    const vp = await restarted.present({ target: TARGET, challenge: 'after-restart', scopes: ['files:write'] });
    expect(await anonymous.verify(vp, { target: TARGET, challenge: 'after-restart' })).toMatchObject({
      valid: true,
      agentDid: first.did,
    });
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'keys', 'agent.json')).mode & 0o777).toBe(0o600);
  });
});

describe('delegation and session tokens', () => {
  it('self custody: A delegates to B; B presents the chain; the session token names B, the scopes and A as actor', async () => {
    const a = await memoryWallet();
    const b = await memoryWallet();
    await anonymous.onboard(await token(), { custody: 'self', wallet: a });
    const { chain } = await a.delegate({ to: b.did, scopes: ['files:read'], lifetimeSeconds: 3600 });
    await b.addCredentials(chain);
    const vp = await b.present({ target: TARGET, challenge: 'nonce-b', scopes: ['files:read'] });

    // A session token needs the session flag, which IssuerClient.verify never sends: a direct call.
    const res = await issuer.fetch(`${issuer.url}/v1/vp/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ presentation: vp, expectedTarget: TARGET, challenge: 'nonce-b', session: true }),
    });
    const verdict = (await res.json()) as { valid: boolean; sessionToken: string };
    expect(verdict.valid).toBe(true);

    const { issuer: issuerDid } = await anonymous.health();
    let fetches = 0;
    const counting: typeof fetch = (input, init) => {
      fetches++;
      return fetch(input, init);
    };
    const claims = await verifySessionToken(verdict.sessionToken, {
      issuerBaseUrl: issuer.url,
      audience: TARGET,
      fetch: counting,
    });
    expect(claims).toMatchObject({
      iss: issuerDid,
      sub: b.did,
      aud: TARGET,
      scope: ['files:read'],
      vpId: vp.id,
      act: { sub: a.did },
    });
    expect(fetches).toBe(2); // the key and the issuer DID
    await verifySessionToken(verdict.sessionToken, { issuerBaseUrl: issuer.url, audience: TARGET, fetch: counting });
    expect(fetches).toBe(2); // cached

    await expect(
      verifySessionToken(verdict.sessionToken, { issuerBaseUrl: issuer.url, audience: 'other.example.com' }),
    ).rejects.toEqual(expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'aud' }));
    const jwk = await anonymous.sessionPublicKey();
    await expect(
      verifySessionToken(verdict.sessionToken, { jwk, issuer: issuerDid, audience: TARGET }),
    ).resolves.toMatchObject({ sub: b.did });
    await expect(
      verifySessionToken(verdict.sessionToken, { jwk, issuer: 'did:web:someone.else', audience: TARGET }),
    ).rejects.toEqual(expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'iss' }));
    await expect(
      verifySessionToken(verdict.sessionToken, {
        jwks: { keys: [jwk] },
        issuer: issuerDid,
        audience: TARGET,
        now: Date.now() + 3_600_000,
      }),
    ).rejects.toEqual(code('JWT_EXPIRED'));
  });

  it("revocation bound offline: a revoked agent's session token verifies until exp + clockToleranceSec (360 s from issuance at the defaults), then JWT_EXPIRED", async () => {
    const wallet = await memoryWallet();
    const enrolled = await anonymous.onboard(await token(), { custody: 'self', wallet });
    const vp = await wallet.present({ target: TARGET, challenge: 'nonce-bound' });
    const res = await issuer.fetch(`${issuer.url}/v1/vp/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ presentation: vp, expectedTarget: TARGET, challenge: 'nonce-bound', session: true }),
    });
    const { sessionToken } = (await res.json()) as { sessionToken: string };
    await operator.revoke(enrolled.vcId, { reason: 'compromised' });
    const revokedAt = Date.now();
    const introspected = await issuer.fetch(`${issuer.url}/v1/sessions/introspect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: sessionToken }),
    });
    expect(await introspected.json()).toEqual({ active: false }); // the issuer knows at once

    // A service checking offline does not: its clock (the `now` option) is moved by hand.
    const { issuer: issuerDid } = await anonymous.health();
    const offline = { jwk: await anonymous.sessionPublicKey(), issuer: issuerDid, audience: TARGET };
    const at = (now: number) => verifySessionToken(sessionToken, { ...offline, now });
    const { iat, exp } = await at(revokedAt);
    const lastAccepted = (exp + 60) * 1000 - 1; // 60 s: the default clockToleranceSec
    await expect(at(lastAccepted)).resolves.toMatchObject({ sub: wallet.did });
    expect(lastAccepted - revokedAt).toBeGreaterThan(300_000); // longer than the token's lifetime
    await expect(at(lastAccepted + 1)).rejects.toEqual(code('JWT_EXPIRED'));
    expect(exp + 60 - iat).toBe(360); // the bound: lifetime (300 s) + tolerance (60 s), from issuance
    // A service that tolerates less skew shortens it by as much.
    await expect(
      verifySessionToken(sessionToken, { ...offline, now: exp * 1000, clockToleranceSec: 0 }),
    ).rejects.toEqual(code('JWT_EXPIRED'));
  });

  it("server custody: the issuer delegates for its agent to B's wallet; B presents; verified with B as the agent", async () => {
    const enrolled = await anonymous.onboard(await token(), { custody: 'server' });
    const b = await memoryWallet();
    const view = await operator.delegate(enrolled.agentDid, {
      to: b.did,
      scopes: ['files:read'],
      lifetimeSeconds: 600,
    });
    expect(view).toMatchObject({
      type: 'DelegatedAgentCredential',
      subjectDid: b.did,
      issuerDid: enrolled.agentDid,
      parentId: enrolled.vcId,
    });
    await b.addCredentials([view.verifiableCredential, enrolled.verifiableCredential]);
    const vp = await b.present({ target: TARGET, challenge: 'nonce-sd' });
    expect(vp.verifiableCredential.map((c) => c.id)).toEqual([view.vcId, enrolled.vcId]);
    expect(await anonymous.verify(vp, { target: TARGET, challenge: 'nonce-sd' })).toMatchObject({
      valid: true,
      agentDid: b.did,
      effectiveScopes: ['files:read'],
    });
    await expect(
      operator.delegate(enrolled.agentDid, { to: b.did, scopes: ['mail:send'], lifetimeSeconds: 600 }),
    ).rejects.toEqual(expect.objectContaining({ status: 422, code: 'SCOPE_ESCALATION' }));
  });
});

describe('operator calls', () => {
  it('renews, suspends and reinstates credentials, and creates status lists', async () => {
    const enrolled = await anonymous.onboard(await token(), { custody: 'server' });
    const renewed = await operator.renew(enrolled.vcId, { validitySeconds: 3600 });
    expect(renewed).toMatchObject({ previousVcId: enrolled.vcId, state: 'active', subjectDid: enrolled.agentDid });
    expect(await anonymous.getCredential(enrolled.vcId)).toMatchObject({
      state: 'superseded',
      supersededBy: renewed.vcId,
    });
    expect(await operator.suspend(renewed.vcId)).toMatchObject({ state: 'suspended' });
    await expect(operator.suspend(renewed.vcId)).rejects.toEqual(
      expect.objectContaining({ status: 409, code: 'CREDENTIAL_SUSPENDED' }),
    );
    expect(await operator.reinstate(renewed.vcId)).toMatchObject({ state: 'active' });
    const list = await operator.createStatusList({
      purpose: 'revocation',
      id: 'revocation-wallet-test',
      makeDefault: false,
    });
    expect(list).toMatchObject({
      listId: 'revocation-wallet-test',
      purpose: 'revocation',
      url: `${issuer.url}/v1/status-list/revocation-wallet-test`,
    });
    await expect(operator.createStatusList({ purpose: 'revocation', id: 'revocation-wallet-test' })).rejects.toEqual(
      expect.objectContaining({ status: 409, code: 'STATUS_LIST_EXISTS' }),
    );
  });

  it('manages DIDs: create, add and remove a service, resolve, list, deactivate', async () => {
    const created = await operator.createDid({ method: 'web', name: 'wallet-test' });
    expect(created).toMatchObject({ kind: 'managed', serverHeldKey: true, deactivated: false });
    const withService = await operator.addService(created.did, {
      id: 'files',
      type: 'LinkedDomains',
      serviceEndpoint: 'https://files.example.com',
    });
    expect(JSON.stringify(withService.didDocument.service)).toContain('https://files.example.com');
    expect((await anonymous.resolveDid(created.did)).didDocument?.service).toHaveLength(1);
    expect((await operator.removeService(created.did, `${created.did}#files`)).didDocument.service ?? []).toHaveLength(
      0,
    );
    expect((await operator.listDids({ kind: 'managed' })).dids.map((d) => d.did)).toContain(created.did);
    expect(await operator.deactivateDid(created.did, { reason: 'test' })).toMatchObject({ deactivated: true });
    expect((await anonymous.resolveDid(created.did)).didDocumentMetadata).toMatchObject({ deactivated: true });
    await expect(operator.deactivateDid(created.did)).rejects.toEqual(
      expect.objectContaining({ status: 410, code: 'DID_DEACTIVATED' }),
    );
  });

  it('lists tokens and agents, reads an agent, issues a credential directly, and fetches a status list', async () => {
    const wallet = await memoryWallet();
    const enrolled = await anonymous.onboard(await token(), { custody: 'self', wallet });
    const used = await operator.listEnrollmentTokens({ state: 'used', limit: 100 });
    expect(used.tokens.find((t) => t.agentDid === enrolled.agentDid)).toMatchObject({
      state: 'used',
      requestedScopes: ['files:read', 'files:write'],
    });
    expect(JSON.stringify(used)).not.toContain('"token"'); // records only, never the values
    const firstPage = await operator.listAgents({ limit: 1 });
    expect(firstPage.agents).toHaveLength(1);
    expect(firstPage.nextCursor).toEqual(expect.any(String));
    const detail = await operator.getAgent(enrolled.agentDid);
    expect(detail).toMatchObject({ did: enrolled.agentDid, custody: 'self', currentCredentialId: enrolled.vcId });
    expect(detail.credentials).toEqual([
      expect.objectContaining({ vcId: enrolled.vcId, type: 'AgentCredential', state: 'active' }),
    ]);
    await expect(operator.getAgent('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')).rejects.toEqual(
      expect.objectContaining({ status: 404 }),
    );
    const issued = await operator.issueCredential({
      subjectDid: enrolled.agentDid,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
      validitySeconds: 600,
    });
    expect(issued).toMatchObject({ type: 'AgentCredential', subjectDid: enrolled.agentDid, state: 'active' });
    await expect(
      anonymous.issueCredential({ subjectDid: enrolled.agentDid, privilegeScopes: ['files:read'], delegationDepth: 0 }),
    ).rejects.toEqual(code('ADMIN_KEY_REQUIRED'));
    // The status list is served as application/vc; the client reads it (verifying it is the status client's job).
    const listUrl = issued.statusLists[0]?.url ?? '';
    const listId = decodeURIComponent(listUrl.slice(listUrl.lastIndexOf('/') + 1));
    const list = await anonymous.getStatusListCredential(listId);
    expect(list).toMatchObject({
      type: expect.arrayContaining(['BitstringStatusListCredential']),
      credentialSubject: expect.objectContaining({ encodedList: expect.any(String) }),
    });
    await expect(anonymous.getStatusListCredential('no-such-list')).rejects.toEqual(
      expect.objectContaining({ status: 404 }),
    );
  });

  it('reads the audit log and checks its chain', async () => {
    const wallet = await memoryWallet();
    await anonymous.onboard(await token(), { custody: 'self', wallet });
    const page = await operator.audit({
      agent: wallet.did,
      event: 'AGENT_ENROLLED',
      from: new Date(Date.now() - 60_000),
    });
    expect(page.records).toHaveLength(1);
    expect(page.records[0]).toMatchObject({ event: 'AGENT_ENROLLED', agentDid: wallet.did });
    expect(await operator.verifyAuditChain()).toMatchObject({ intact: true });
  });
});

describe("the API's errors, typed", () => {
  it('TOKEN_USED, TOKEN_INVALID, AGENT_EXISTS, CREDENTIAL_NOT_FOUND, UNAUTHORIZED, VALIDATION_FAILED — with status and no secret', async () => {
    const used = await token();
    const wallet = await memoryWallet();
    await anonymous.onboard(used, { custody: 'self', wallet });
    const reuse = (await anonymous.onboard(used, { custody: 'server' }).catch((e: unknown) => e)) as IssuerApiError;
    expect(reuse).toBeInstanceOf(IssuerApiError);
    expect(reuse).toMatchObject({ status: 409, code: 'TOKEN_USED' });
    expect(`${reuse.message} ${JSON.stringify(reuse.details ?? null)}`).not.toContain(used);
    await expect(anonymous.onboard('not-a-real-token-0123456789', { custody: 'server' })).rejects.toEqual(
      expect.objectContaining({ status: 403, code: 'TOKEN_INVALID' }),
    );
    await expect(anonymous.onboard(await token(), { custody: 'self', wallet })).rejects.toEqual(
      expect.objectContaining({ status: 409, code: 'AGENT_EXISTS' }),
    );
    await expect(anonymous.getCredential('urn:uuid:00000000-0000-4000-8000-000000000000')).rejects.toEqual(
      expect.objectContaining({ status: 404, code: 'CREDENTIAL_NOT_FOUND' }),
    );
    const wrongKey = new IssuerClient({ baseUrl: issuer.url, adminKey: 'wrong-admin-key-0123456789abcdef' });
    const unauthorized = (await wrongKey.audit().catch((e: unknown) => e)) as IssuerApiError;
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(unauthorized.message).not.toContain('wrong-admin-key');
    await expect(
      operator.mintEnrollmentToken({ requestedScopes: ['FILES'], maxDelegationDepth: 0, requestedDomains: [TARGET] }),
    ).rejects.toEqual(
      expect.objectContaining({
        status: 400,
        code: 'VALIDATION_FAILED',
        details: expect.arrayContaining([expect.objectContaining({ path: 'json.requestedScopes.0' })]),
      }),
    );
  });

  it('verify returns an unreadable presentation as a MALFORMED denial, not an exception', async () => {
    expect(await anonymous.verify({ type: ['VerifiablePresentation'] }, { target: TARGET })).toMatchObject({
      valid: false,
      reason: 'MALFORMED',
    });
  });
});
