// The operator console end to end, the way an operator uses it: Debian's Chromium (driven by
// Playwright, never downloaded) against a real issuer serving the console built in beforeAll.
// Sign in, mint a token (shown once), onboard an agent with it over the API, find the agent,
// revoke its credential through the confirmation dialog, see the revocation and the refusals
// in the audit trail with the chain "intact", manage a DID's services, sign out. Screenshots
// at 1440 and 375 px go to test/artifacts/. Any error in the page's console fails the test.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../console/build.ts';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { createConsent } from '../../wallet/vc/grant.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { outsideQuery } from '../support/database.ts';
import {
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  TEST_ADMIN_KEY,
  type TestIssuer,
} from '../support/issuer.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.ts';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

let issuer: TestIssuer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Console errors and uncaught exceptions; `expected` lists the refusals a step provokes on purpose. */
let pageErrors: string[] = [];
let expected: RegExp[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await buildConsole();
  issuer = await startTestIssuer();
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
  });
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: issuer.url });
  page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected.some((re) => re.test(message.text())))
      pageErrors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await issuer?.dispose();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors = [];
  expected = [];
});

async function shot(name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `console-${name}.png`), fullPage });
}

/** Every form control in the page has an accessible label. */
async function expectLabelledControls(): Promise<void> {
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label'))
      .map((el) => el.outerHTML),
  );
  expect(unlabelled).toEqual([]);
}

async function expectNoHorizontalScroll(): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

describe('operator console', () => {
  let token = '';
  let agent: { agentDid: string; vcId: string };

  it('explains an unreachable or garbled issuer instead of failing silently', async () => {
    await page.goto(`${issuer.url}/console`);
    await expect.poll(() => page.getByLabel('Admin API key').isVisible()).toBe(true);
    await shot('signin-1440');
    expected = [/ERR_FAILED/, /status of 502/];
    await page.route('**/v1/console/status-lists', (route) => route.abort());
    await page.getByLabel('Admin API key').fill(TEST_ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('NETWORK_ERROR');
    expect(await page.getByRole('alert').textContent()).toContain('Cannot reach the issuer');
    await page.unroute('**/v1/console/status-lists');
    await page.route('**/v1/console/status-lists', (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' }),
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('BAD_RESPONSE');
    expect(await page.getByRole('alert').textContent()).toContain('502');
    await page.unroute('**/v1/console/status-lists');
    // Neither failure signs anyone in.
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('says where a development issuer keeps the admin key', async () => {
    const hint = page.locator('#admin-key-hint');
    expect(await page.getByLabel('Admin API key').getAttribute('aria-describedby')).toBe('admin-key-hint');
    expect(await hint.textContent()).toContain('data/issuer-secrets.json');
    expect(await hint.textContent()).toContain('adminApiKey');
  });

  it('signs in with the admin key, keeping it out of the URL and the page', async () => {
    expected = [/status of 401/];
    await page.getByLabel('Admin API key').fill('not-the-admin-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('UNAUTHORIZED');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    await page.getByLabel('Admin API key').fill(TEST_ADMIN_KEY);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Agents');
    expect(await page.evaluate(() => Object.values({ ...sessionStorage }))).toEqual([TEST_ADMIN_KEY]);
    expect(page.url()).not.toContain(TEST_ADMIN_KEY);
    expect(await page.content()).not.toContain(TEST_ADMIN_KEY);
    expect(await page.getByRole('link', { name: 'Agents' }).getAttribute('aria-current')).toBe('page');
  });

  it('mints an enrollment token, shows it once with its expiry and lists it without its value', async () => {
    await page.getByRole('link', { name: 'Enrollment' }).click();
    await page.getByLabel('Scopes').fill('files:read files:write');
    await page.getByLabel('Maximum delegation depth').fill('1');
    await page.getByLabel('Domains').fill('files.example.com');
    // The rule of docs/protocol.md §Where authority applies, next to the field.
    expect(await page.locator('#f-domains-hint').textContent()).toContain(
      'covers every https URI at exactly that host and port',
    );
    await page.getByLabel('Token lifetime (seconds)').fill('900');
    await expectLabelledControls();
    await page.getByRole('button', { name: 'Mint token' }).click();
    const minted = page.getByLabel('Enrollment token');
    await expect.poll(() => minted.inputValue()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    token = await minted.inputValue();
    expect(await page.locator('#token-note').textContent()).toContain('Shown once.');
    expect(await page.locator('.once time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('.copied').textContent()).toContain('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await expect.poll(() => page.locator('table').textContent()).toContain('outstanding');
    await shot('enrollment-1440');

    // A double click mints one token, not two (the button waits for the answer).
    const countTokens = async () =>
      (await issuer.call('/v1/enrollment-tokens?limit=500', { admin: true })).json.tokens.length as number;
    const before = await countTokens();
    await page.getByRole('button', { name: 'Mint token' }).dblclick();
    await expect.poll(() => page.getByRole('button', { name: 'Mint token' }).isEnabled()).toBe(true);
    await expect.poll(() => minted.inputValue()).not.toBe(token);
    expect(await countTokens()).toBe(before + 1);
    token = await minted.inputValue();

    // Leaving the view drops the token: the list shows its id and state, never its value.
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Enrollment' }).click();
    await expect.poll(() => page.locator('table').textContent()).toContain('outstanding');
    expect(await page.content()).not.toContain(token);
  });

  it('finds the agent onboarded with that token and shows its page', async () => {
    agent = await onboardServerAgent(issuer, token);
    await page.getByLabel('Show').selectOption('used');
    await expect.poll(() => page.locator('tbody').textContent()).toContain('used');
    expect(await page.locator(`tbody a[href="#/agents/${encodeURIComponent(agent.agentDid)}"]`).count()).toBe(1);
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByLabel('Search agents').fill('files:write');
    await page.getByRole('button', { name: 'Search' }).click();
    const link = page.locator(`a[href="#/agents/${encodeURIComponent(agent.agentDid)}"]`).first();
    await link.waitFor();
    const row = page.locator('tbody tr').first();
    expect(await row.textContent()).toContain('server');
    expect(await row.textContent()).toContain('files.example.com');
    expect(await row.textContent()).toContain('active');
    await shot('agents-1440');
    await link.click();
    await expect.poll(() => page.getByRole('heading', { name: 'Credentials' }).isVisible()).toBe(true);
    expect(await page.locator('dl.facts').textContent()).toContain(agent.agentDid);
    await expect.poll(() => page.locator('pre.json').first().textContent()).toContain(agent.agentDid);
    expect(await page.getByRole('heading', { name: 'Recent audit events' }).isVisible()).toBe(true);
    await expect
      .poll(() => page.locator('section', { hasText: 'Recent audit events' }).textContent())
      .toContain('AGENT_ENROLLED');
  });

  it("says where the agent's authority applies, and checks a resource URI by the verifiers' rule", async () => {
    const section = page.locator('section', {
      has: page.getByRole('heading', { name: 'Where this authority applies' }),
    });
    expect(await section.textContent()).toContain('Domains: files.example.com');
    expect(await section.textContent()).toContain('no subdomain');
    const answer = page.locator('#coverage-answer');
    const check = async (target: string) => {
      await page.getByLabel('Resource URI').fill(target);
      await section.getByRole('button', { name: 'Check', exact: true }).click();
    };
    await check('https://files.example.com/mcp');
    await expect.poll(() => answer.textContent()).toBe('Covered by files.example.com.');
    for (const outside of [
      'https://sub.files.example.com/mcp',
      'http://files.example.com/mcp',
      'https://files.example.com:8443/mcp',
    ]) {
      await check(outside);
      await expect.poll(() => answer.textContent()).toContain(`Not covered: no entry covers ${outside}`);
    }
    // A server-custody agent's delegations are signed here: no self-custody note.
    expect(await page.locator('#self-custody-delegations').count()).toBe(0);
  });

  it("explains that a self-custody agent's delegations are not held by the issuer", async () => {
    const self = await onboardSelfAgent(
      issuer,
      didKeyIdentity(seedSigner(generateSeed())),
      await mintToken(issuer, { requestedDomains: ['https://files.example.com/mcp'] }),
    );
    await page.evaluate((did) => (location.hash = `#/agents/${encodeURIComponent(did)}`), self.agentDid);
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain(self.agentDid);
    const note = page.locator('#self-custody-delegations');
    await expect.poll(() => note.textContent()).toContain('never sent to this issuer');
    expect(await note.textContent()).toContain('not held here');
    expect(await note.textContent()).toContain('Revoking or suspending this agent’s credential ends every one of them');
    // A URI entry covers that URI alone.
    await page.getByLabel('Resource URI').fill('https://files.example.com/mcp/tools');
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await expect.poll(() => page.locator('#coverage-answer').textContent()).toContain('Not covered');
    await page.evaluate((did) => (location.hash = `#/agents/${encodeURIComponent(did)}`), agent.agentDid);
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain(agent.agentDid);
    await expect.poll(() => page.getByRole('heading', { name: 'Credentials' }).isVisible()).toBe(true);
  });

  it("shows consents naming the agent as reports, apart from the agent's own history", async () => {
    const user = didKeyIdentity(seedSigner(generateSeed()));
    const { challengeId, challenge } = (await issuer.call('/v1/challenges', { body: { userDid: user.did } })).json;
    const consent = await createConsent({
      user,
      agentDid: agent.agentDid,
      providerDid: 'did:web:files.example.com',
      privilegeScopes: ['files:read'],
      challenge,
    });
    expect(
      (await issuer.call(`/v1/challenges/${challengeId}/verify`, { body: { proof: consent } })).json.verified,
    ).toBe(true);
    await page.reload();
    const reports = page.locator('section', { has: page.getByRole('heading', { name: 'Reports naming this agent' }) });
    await expect.poll(() => reports.textContent()).toContain('CONSENT_VERIFIED');
    const own = page.locator('section', { has: page.getByRole('heading', { name: 'Recent audit events' }) });
    expect(await own.textContent()).toContain('AGENT_ENROLLED');
    expect(await own.textContent()).not.toContain('CONSENT_VERIFIED');
    await reports.getByRole('link', { name: 'All reports naming this agent' }).click();
    await expect.poll(() => page.getByLabel('Records').inputValue()).toBe('true');
    await expect.poll(() => page.locator('tbody').textContent()).toContain('CONSENT_VERIFIED');
    expect(await page.locator('tbody').textContent()).not.toContain('AGENT_ENROLLED');
    await page.goBack();
    await expect.poll(() => page.getByRole('heading', { name: 'Credentials' }).isVisible()).toBe(true);
  });

  it('issues the agent its own client secret, shown once, and revokes it only after confirmation', async () => {
    const section = page.locator('section', { hasText: 'Client secret' });
    await section.getByRole('button', { name: 'Issue or rotate secret' }).click();
    await expect.poll(() => section.textContent()).toContain('mandate_cs_');
    const secret = /mandate_cs_[A-Za-z0-9_-]{43}/.exec((await section.textContent()) ?? '')?.[0] as string;
    const vpPath = `/v1/agents/${encodeURIComponent(agent.agentDid)}/vp`;
    const asAgent = { headers: { authorization: `Bearer ${secret}` }, body: { targetService: 'files.example.com' } };
    expect((await issuer.call(vpPath, asAgent)).status).toBe(200);

    await section.getByRole('button', { name: 'Revoke secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the client secret?' });
    await dialog.getByRole('button', { name: 'Revoke secret' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('was revoked');
    expect(await section.textContent()).not.toContain(secret);
    expect((await issuer.call(vpPath, asAgent)).status).toBe(401);
  });

  it('renews, then revokes the current credential only after confirmation', async () => {
    await page.getByRole('button', { name: `Renew ${agent.vcId}` }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('renewed');
    await expect.poll(() => page.locator('tbody', { hasText: 'superseded' }).count()).toBeGreaterThan(0);
    const detail = await issuer.call(`/v1/agents/${encodeURIComponent(agent.agentDid)}`, { admin: true });
    const current: string = detail.json.currentCredentialId;
    expect(current).not.toBe(agent.vcId);

    // Cancel leaves the credential active.
    await page.getByRole('button', { name: `Revoke ${current}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this credential?' });
    await dialog.waitFor();
    await shot('revoke-confirm-1440', false); // a modal: the viewport is what the operator sees
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(current)}`)).json.state).toBe('active');

    // Suspend, then Reinstate: the suspension reaches the renewed-from credential too, and says so.
    await page.getByRole('button', { name: `Suspend ${current}` }).click();
    await expect
      .poll(() => page.locator('#status').textContent())
      .toContain(`Credential ${current} suspended. Also 1 more: ${agent.vcId}.`);
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(agent.vcId)}`)).json.state).toBe('suspended');
    await page.getByRole('button', { name: `Reinstate ${current}` }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain(`Credential ${current} reinstated.`);
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(current)}`)).json.state).toBe('active');
    // The button that had focus is gone after the redraw: focus lands on the view's heading, not <body>.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

    await page.getByRole('button', { name: `Revoke ${current}` }).click();
    expect(await dialog.textContent()).toContain('every other live credential of that agent');
    await dialog.getByRole('button', { name: 'Revoke credential' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('revoked');
    // Its buttons are gone: focus moves to the view's heading.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(current)}`)).json.state).toBe('revoked');
    await expect.poll(() => page.locator('tbody').first().textContent()).toContain('revoked');

    // Refusals the audit trail must show: a verifier now rejects the agent's presentation
    // (VP_REJECTED, CREDENTIAL_REVOKED), and a second revocation is refused.
    const vp = await issuer.call(`/v1/agents/${encodeURIComponent(agent.agentDid)}/vp`, {
      admin: true,
      body: { targetService: 'files.example.com' },
    });
    const verdict = await issuer.call('/v1/vp/verify', {
      body: { presentation: vp.json, expectedTarget: 'files.example.com' },
    });
    expect(verdict.status).toBe(403);
    expect(verdict.json.reason).toBe('CREDENTIAL_REVOKED');
    expect(
      (await issuer.call(`/v1/vcs/${encodeURIComponent(current)}/revoke`, { admin: true, body: {} })).json.error.code,
    ).toBe('CREDENTIAL_ALREADY_REVOKED');
    agent = { ...agent, vcId: current };
  });

  it('shows the status lists with their fill level', async () => {
    await page.getByRole('link', { name: 'Credentials' }).click();
    await expect.poll(() => page.locator('.meter').first().textContent()).toMatch(/entries used/);
    expect(await page.locator('table').textContent()).toContain('revocation');
    await page.getByLabel('Credential id').fill(agent.vcId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain('revoked');
    await shot('credentials-1440');
    // A revocation from the lookup shows at once in the list's fill level.
    const fresh = await onboardServerAgent(issuer);
    const list = (await issuer.call(`/v1/vcs/${encodeURIComponent(fresh.vcId)}`)).json.statusLists.find(
      (l: { purpose: string }) => l.purpose === 'revocation',
    ).listId as string;
    const row = page.locator('tbody tr', { hasText: list });
    await page.reload();
    const setBefore = Number(/(\d+) set/.exec((await row.textContent()) ?? '')?.[1]);
    await page.getByLabel('Credential id').fill(fresh.vcId);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('button', { name: `Revoke ${fresh.vcId}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke credential' }).click();
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain('revoked');
    await expect.poll(() => row.textContent()).toContain(`${setBefore + 1} set`);
  });

  it('shows the audit trail with the revocation, the refusals and the chain intact, live', async () => {
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await expect.poll(() => page.locator('[data-chain]').textContent()).toMatch(/Hash chain intact \(\d+ records\)/);
    const table = page.locator('table');
    await expect.poll(() => table.textContent()).toContain('CREDENTIAL_REVOKED');
    expect(await table.textContent()).toContain('REQUEST_REFUSED');
    expect(await table.textContent()).toContain('UNAUTHORIZED');
    expect(await page.locator('strong.reason', { hasText: 'CREDENTIAL_REVOKED' }).count()).toBeGreaterThan(0);
    // A provider's report of its own refusal is flagged like the issuer's.
    const provider = didKeyIdentity(seedSigner(generateSeed()));
    const denial = await createProof(
      {
        type: 'AuditEvent',
        id: `urn:uuid:${crypto.randomUUID()}`,
        provider: provider.did,
        event: 'authorization',
        agentDid: agent.agentDid,
        action: 'GET /q3.pdf',
        result: 'denied SCOPE_ESCALATION',
      },
      { signer: provider.signer, verificationMethod: provider.verificationMethod, proofPurpose: 'assertionMethod' },
    );
    expect((await issuer.call('/v1/audit/events', { body: denial })).status).toBe(201);
    await expect
      .poll(() => page.locator('strong.reason', { hasText: 'denied SCOPE_ESCALATION' }).count(), { timeout: 15_000 })
      .toBe(1);
    // A token-endpoint refusal is flagged too.
    const refusedToken = await fetch(`${issuer.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', resource: 'https://files.example.com/mcp' }),
    });
    expect(refusedToken.status).toBe(400);
    await expect
      .poll(() => page.locator('strong.reason', { hasText: 'GRANT_TYPE_UNSUPPORTED' }).count(), { timeout: 15_000 })
      .toBe(1);
    await expectLabelledControls();

    // Live: a record written now appears without a reload.
    await issuer.call('/v1/status-list', {
      admin: true,
      body: { purpose: 'revocation', id: 'console-live', makeDefault: false },
    });
    await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain('STATUS_LIST_CREATED');

    // Filters: by event.
    await page.getByLabel('Event').fill('REQUEST_REFUSED');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect
      .poll(async () =>
        (await page.locator('tbody tr').allTextContents()).every((row) => row.includes('REQUEST_REFUSED')),
      )
      .toBe(true);
    await page.getByLabel('Event').fill('');
    await page.getByLabel('Agent DID').fill(agent.agentDid);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect
      .poll(async () =>
        (await page.locator('tbody tr').allTextContents()).every((row) => !row.includes('STATUS_LIST_CREATED')),
      )
      .toBe(true);
    await page.getByLabel('Agent DID').fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => table.textContent()).toContain('STATUS_LIST_CREATED');
    await shot('audit-1440');
    // A refused filter leaves no rows behind that answered another one.
    expected = [/status of 400/];
    await page.getByLabel('From').fill('2026-01-02T00:00:00');
    await page.getByLabel('To').fill('2026-01-01T00:00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('VALIDATION_FAILED');
    expect(await page.locator('tbody tr').count()).toBe(0);
    await page.getByLabel('From').fill('');
    await page.getByLabel('To').fill('');
  });

  it('adds and removes a service endpoint and deactivates a DID after confirmation', async () => {
    const created = await issuer.call('/v1/dids', { admin: true, body: { name: 'console-test' } });
    expect(created.status).toBe(201);
    const did: string = created.json.did;
    await page.getByRole('link', { name: 'DIDs' }).click();
    await page.locator(`a[href="#/dids/${encodeURIComponent(did)}"]`).click();
    await page.getByLabel('Id (optional)').fill('files');
    await page.getByLabel('Type').fill('LinkedDomains');
    await page.getByLabel('Endpoint URL').fill('https://files.example.com/');
    await page.getByRole('button', { name: 'Add service' }).click();
    await expect.poll(() => page.locator('table').textContent()).toContain('https://files.example.com/');
    await shot('did-1440');
    // Adding the same id again: the issuer's refusal is shown readably.
    expected = [/status of 409/];
    await page.getByLabel('Id (optional)').fill('files');
    await page.getByLabel('Type').fill('LinkedDomains');
    await page.getByLabel('Endpoint URL').fill('https://files.example.com/');
    await page.getByRole('button', { name: 'Add service' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('SERVICE_EXISTS');
    await page.getByRole('button', { name: `Remove service ${did}#files` }).click();
    await expect.poll(() => page.getByText('No service endpoint.').isVisible()).toBe(true);
    expect((await issuer.call(`/v1/dids/${encodeURIComponent(did)}`)).json.didDocument.service ?? []).toEqual([]);

    await page.getByRole('button', { name: 'Deactivate DID…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate DID' }).click();
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain('deactivated');
    expect((await issuer.call(`/v1/dids/${encodeURIComponent(did)}`)).json.didDocumentMetadata.deactivated).toBe(true);
  });

  it("offers no action on the issuer's own DID, which the issuer would refuse", async () => {
    const own = issuer.running.ctx.issuer.did;
    await page.goto(`${issuer.url}/console#/dids/${encodeURIComponent(own)}`);
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain('issuer');
    expect(await page.getByText("This is the issuer's own DID").isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Deactivate DID…' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add service' }).count()).toBe(0);
  });

  it('works at 375 px: no horizontal scrolling, tables stacked', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    for (const [hash, name] of [
      ['#/agents', 'agents'],
      [`#/agents/${encodeURIComponent(agent.agentDid)}`, 'agent'],
      ['#/enrollment', 'enrollment'],
      ['#/audit', 'audit'],
    ] as const) {
      await page.goto(`${issuer.url}/console${hash}`);
      await page.locator('main h1').waitFor();
      await page.locator('table, .empty').first().waitFor();
      await expectNoHorizontalScroll();
      await shot(`${name}-375`);
    }
    expect(
      await page
        .locator('thead')
        .first()
        .evaluate((el) => getComputedStyle(el).position),
    ).toBe('absolute');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('is usable from the keyboard, with a visible focus ring', async () => {
    await page.goto('about:blank');
    await page.goto(`${issuer.url}/console#/agents`);
    await page.locator('main h1').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { text: el.textContent, outline: getComputedStyle(el).outlineStyle };
    });
    expect(focused).toEqual({ text: 'Enrollment', outline: 'solid' });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Enrollment');
    // The new view's heading takes focus, so a screen reader announces where the operator is.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  });

  it('shows "broken at record N" once a record is altered behind the issuer\'s back, at once on "Apply filters"', async () => {
    await page.getByRole('link', { name: 'Audit trail' }).click();
    const verdict = page.locator('[data-chain]');
    await expect.poll(() => verdict.textContent()).toMatch(/Hash chain intact/);
    await outsideQuery(issuer, "UPDATE audit SET actor = 'someone-else' WHERE seq = 3");
    // Live polls re-check the chain once a minute; an explicit refresh checks it now.
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect
      .poll(() => verdict.textContent(), { timeout: 15_000 })
      .toMatch(/Hash chain broken at record 3 \(of \d+\)/);
    expect(await verdict.getAttribute('data-chain')).toBe('broken');
  });

  it('signs out: the key is gone from the tab and the sign-in form is back', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByLabel('Admin API key').isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByLabel('Admin API key').isVisible()).toBe(true);
  });
});
