// The consent & delegation demo end to end, the way a newcomer runs it: `startDemo({port: 0})`
// (what `npm run demo` starts) in Debian's Chromium driven by Playwright (never downloaded).
// All eight steps are clicked in order; the sub-agent's call is approved through the
// service-worker verifier; it calls the provider's MCP server (the MCP SDK behind mcpAuth) with a
// DPoP-bound token exchanged at the issuer for its chain — read_file answers, write_file is
// refused 403 INSUFFICIENT_SCOPE and the step-up invalid_scope; then SCOPE_ESCALATION (a forged
// further delegation) and CREDENTIAL_REVOKED (after the operator's revocation), and the audit
// trail shows the refusals and the MCP token with an intact hash chain. Screenshots go to
// test/artifacts/. Any error in the page's console fails the test, except the browser's own line
// for the 400/401/403 answers the story provokes. Step 6 is also done from Node with clients
// nobody here wrote: oauth4webapi for the token exchange and DPoP, the MCP SDK's Client for the calls.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TARGET, startDemo, type RunningDemo } from '../../demo/main.ts';
import { createMemoryCredentialStore } from '../../wallet/client/credential-store.ts';
import { IssuerClient } from '../../wallet/client/issuer-client.ts';
import { createMemoryKeyStore } from '../../wallet/keystore/index.ts';
import { encodePresentationHeader } from '../../wallet/vc/transport.ts';
import { Wallet } from '../../wallet/wallet.ts';
import { dpopChallenge } from '../support/oauth.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.ts';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
/**
 * Chromium logs every non-2xx fetch as a console error; only the story's are expected: the MCP
 * server's 401 (no token) and 403 (write_file), the issuer's 400 (step-up), the two 403 of step 7,
 * and the 401 to the signed request replayed in step 5.
 */
const EXPECTED_REFUSAL = /Failed to load resource: the server responded with a status of 40[013]/;

let demo: RunningDemo;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
let refusalLines = 0;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  demo = await startDemo({ port: 0 });
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (EXPECTED_REFUSAL.test(message.text())) refusalLines += 1;
    else pageErrors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await demo?.close();
});

async function run(step: string, button: string): Promise<void> {
  await page.click(`#${button}`);
  const section = page.locator(`#${step}`);
  await expect
    .poll(async () => section.getAttribute('data-state'), { timeout: 20_000 })
    .toMatch(/^(done|partial|failed)$/);
  const state = await section.getAttribute('data-state');
  if (state === 'failed')
    throw new Error(`${step} failed: ${(await section.locator('.error').allTextContents()).join(' ')}`);
}

/** A screenshot of one step (or of the whole page when `step` is undefined). */
async function shot(name: string, step?: string): Promise<void> {
  const path = join(ARTIFACTS, `demo-${name}.png`);
  if (step === undefined) await page.screenshot({ path, fullPage: true });
  else await page.locator(`#${step}`).screenshot({ path });
}

/** Step 6: the MCP server's answers, read from the page (the tool's own output and the caller it was given). */
async function runMcpStep(): Promise<void> {
  // Who is who, from the DelegatedAgentCredential step 4 showed: the agent delegated to the sub-agent.
  const delegation = JSON.parse((await page.locator('#step-4 pre').last().textContent()) ?? '{}') as {
    issuer: string;
    credentialSubject: { id: string; domains: string[] };
  };
  const mcpResource = new URL('/mcp', demo.url).href;
  expect(delegation.credentialSubject.domains).toContain(mcpResource);

  await run('step-6', 'run-6a');
  const allowed = page.locator('#outcome-6a');
  expect(await allowed.getAttribute('data-verdict')).toBe('approved');
  expect(await allowed.textContent()).toContain('read_file answered — 200, scopes files:read');
  expect(await page.locator('#step-6 .checks li[data-ok="false"]').count()).toBe(0);
  expect(await page.locator('#step-6 .checks li[data-ok="true"]').count()).toBe(7);
  const shown = page.locator('#step-6 pre');
  const answer = (await shown.nth((await shown.count()) - 2).textContent()) ?? '';
  const toolResult = (JSON.parse(answer) as { result: { content: Array<{ text: string }> } }).result.content;
  expect(toolResult[0]?.text).toBe('Q3 report: revenue 4.2 M€ (+12 %), 3 new customers, churn 1.1 %.');
  // The tool handler was given the caller the middleware verified from the token: the sub-agent,
  // acting for the agent, with files:read. The page shows it parsed, last.
  expect(JSON.parse(toolResult[1]?.text ?? '{}')).toEqual(JSON.parse((await shown.last().textContent()) ?? ''));
  expect(JSON.parse(toolResult[1]?.text ?? '{}')).toMatchObject({
    caller: {
      agentDid: delegation.credentialSubject.id,
      delegators: [delegation.issuer],
      scopes: ['files:read'],
      via: 'token',
    },
    audit: 'recorded by the issuer',
  });

  await run('step-6', 'run-6b');
  const refused = page.locator('#outcome-6b');
  expect(await refused.getAttribute('data-verdict')).toBe('denied');
  expect(await refused.textContent()).toContain('INSUFFICIENT_SCOPE — 403 insufficient_scope, scope="files:write"');
  const stepText = (await page.locator('#step-6').textContent()) ?? '';
  expect(stepText).toContain('"reason": "INSUFFICIENT_SCOPE"');
  expect(stepText).toContain('"error": "invalid_scope"');
  expect(await page.locator('#step-6').getAttribute('data-state')).toBe('done');
  await shot('mcp', 'step-6');
}

describe('npm run demo', () => {
  it('walks through all eight steps: approved, an MCP tool called and one refused, then SCOPE_ESCALATION and CREDENTIAL_REVOKED, all in the audit trail', async () => {
    await page.goto(demo.url);
    await expect
      .poll(() => page.locator('#verifier-status').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('ready');
    await expect.poll(() => page.locator('[data-party="issuer"]').textContent()).toBe(demo.issuer.ctx.issuer.did);

    // Step 8 before the story: the trail is shown, but it holds no refusal of this page's yet.
    await page.click('#run-8');
    await expect.poll(() => page.locator('#step-8').getAttribute('data-state')).toBe('failed');
    expect(await page.locator('#step-8 .error').textContent()).toContain('this story’s refusals');
    expect(await page.locator('#run-8').isEnabled()).toBe(true);

    await run('step-1', 'run-1');
    expect(await page.locator('#step-1 pre').last().textContent()).toMatch(/"token"/);
    expect(await page.locator('#step-1 .checks li[data-ok="true"]').count()).toBe(2);
    // The admin key never reaches the page: not in the config, not in any answer shown.
    expect(await page.content()).not.toContain(demo.issuer.ctx.config.adminApiKey);

    await run('step-2', 'run-2');
    const agentDid = await page.evaluate(() => document.querySelector('#step-2 pre')?.textContent ?? '');
    expect(agentDid).toContain('"AgentCredential"');
    expect(await page.locator('#step-2 .checks li[data-ok="true"]').count()).toBe(5);

    await run('step-3', 'run-3');
    expect(await page.locator('#step-3 .checks li[data-ok="false"]').count()).toBe(0);
    const grantText = await page.locator('#step-3 pre').last().textContent();
    expect(grantText).toContain('"DelegationGrantCredential"');
    expect(grantText).toContain(demo.provider.did);
    expect(grantText).toContain(demo.provider.statusListUrl);

    await run('step-4', 'run-4');
    expect(await page.locator('#step-4 pre').last().textContent()).toContain('"delegationDepth": 1');
    // Judged in the page from the stored credentials (scopes, depth, domains, validity, digest).
    expect(await page.locator('#step-4 .checks li[data-ok="true"]').count()).toBe(5);

    await run('step-5', 'run-5a');
    const approved = page.locator('#outcome-5a');
    expect(await approved.getAttribute('data-verdict')).toBe('approved');
    expect(await approved.textContent()).toContain('effective scopes: files:read');
    expect(await page.locator('#step-5 .checks li[data-ok="true"]').count()).toBe(7);
    await shot('approved', 'step-5');

    // The same sub-agent signs its requests (RFC 9421) instead: the provider's server verifies
    // them, the chain in full first, by digest afterwards, and refuses the first one replayed.
    await run('step-5', 'run-5b');
    const signed = page.locator('#outcome-5b');
    expect(await signed.getAttribute('data-verdict')).toBe('approved');
    expect(await signed.textContent()).toContain('200 with the chain in full, 200 by digest');
    expect(await signed.textContent()).toContain('401 HTTP_SIGNATURE_REPLAYED');
    const answers = await page.locator('#step-5 pre').allTextContents();
    const sentByDigest = answers.find((text) => text.includes('"mandate-chain-digest"')) ?? '';
    expect(sentByDigest).toContain('"signature-input": "sig1=(');
    expect(sentByDigest).toContain('"signature": "sig1=:');
    const seen = answers.filter((text) => text.includes('"file": "q3-report"') && text.includes('"vpId": "signature:'));
    expect(seen).toHaveLength(2);
    expect(await page.locator('#step-5').getAttribute('data-state')).toBe('done');

    await runMcpStep();

    await run('step-7', 'run-7a');
    const escalation = page.locator('#outcome-7a');
    expect(await escalation.getAttribute('data-verdict')).toBe('denied');
    expect(await escalation.textContent()).toContain('SCOPE_ESCALATION');
    expect(await page.locator('#step-7 .checks li[data-ok="false"]').first().textContent()).toContain(
      'delegation chain',
    );

    await run('step-7', 'run-7b');
    const revoked = page.locator('#outcome-7b');
    expect(await revoked.getAttribute('data-verdict')).toBe('denied');
    expect(await revoked.textContent()).toContain('CREDENTIAL_REVOKED');
    expect(await page.locator('#step-7').getAttribute('data-state')).toBe('done');
    // The verifier's checks in the order it runs them: each passed, then the failed one, then none reached.
    for (const list of await page.locator('#step-7 .checks').all()) {
      const marks = (
        await list.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-ok')))
      ).join(' ');
      expect(marks).toMatch(/^(true )*false( skipped)*$/);
      expect(await list.locator('li').last().textContent()).toContain('replay');
    }
    await shot('denied', 'step-7');

    await run('step-8', 'run-8');
    const audit = page.locator('#audit-table');
    const auditText = (await audit.textContent()) ?? '';
    expect(auditText).toContain('SCOPE_ESCALATION');
    expect(auditText).toContain('CREDENTIAL_REVOKED');
    expect(auditText).toContain('OAUTH_TOKEN_ISSUED');
    expect(auditText).toContain('MCP tools/call read_file');
    expect(await page.locator('#step-8 .checks li[data-ok="true"]').count()).toBe(3);
    expect(await page.locator('#step-8 .error').count()).toBe(0); // the early attempt's error is gone
    // Read-only, so it can be shown again: the new trail replaces the old one.
    await run('step-8', 'run-8');
    expect(await page.locator('#audit-table').count()).toBe(1);
    await shot('audit', 'step-8');
    await shot('full');

    expect(refusalLines).toBeLessThanOrEqual(6);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('refuses, with stable codes, what the page or anyone else must not do', async () => {
    const post = (path: string, body: unknown) =>
      fetch(new URL(path, demo.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    // The API is only reached through the verifier: without its claims, 401 UNVERIFIED.
    const direct = await fetch(new URL('/api/files/q3-report', demo.url));
    expect(direct.status).toBe(401);
    expect(((await direct.json()) as { error: { code: string } }).error.code).toBe('UNVERIFIED');
    // The signed copy verifies on the server: forged claim headers without a signature are refused.
    const unsigned = await fetch(new URL('/signed-api/files/q3-report', demo.url), {
      headers: { 'x-mandate-agent-did': 'did:key:z6Mkforged', 'x-mandate-scopes': 'files:read' },
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ valid: false });

    // Only the onboarding endpoints are relayed to the issuer: never an admin route.
    const relayed = await fetch(new URL('/issuer/v1/audit', demo.url));
    expect(relayed.status).toBe(404);
    expect(((await relayed.json()) as { error: { code: string } }).error.code).toBe('NOT_RELAYED');
    // A relayed answer comes whole, with its length (docs/demo.md: Chromium's "canceled" label).
    const onboard = await post('/issuer/v1/onboard', {});
    expect(onboard.status).toBe(400);
    const onboardBody = await onboard.text();
    expect(onboard.headers.get('content-length')).toBe(String(Buffer.byteLength(onboardBody)));
    expect(JSON.parse(onboardBody)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });

    // The MCP server: without a token, 401 naming its RFC 9728 metadata, which names the issuer.
    const mcp = new URL('/mcp', demo.url).href;
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: {} } };
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const noToken = await fetch(mcp, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(call) });
    expect(noToken.status).toBe(401);
    const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', demo.url).href;
    expect(noToken.headers.get('www-authenticate')).toContain(`Bearer resource_metadata="${metadataUrl}"`);
    expect(await noToken.json()).toMatchObject({ reason: 'TOKEN_MISSING' });
    expect(await (await fetch(metadataUrl)).json()).toMatchObject({
      resource: mcp,
      authorization_servers: [demo.issuer.url],
      scopes_supported: ['files:read', 'files:write'],
      dpop_bound_access_tokens_required: true,
    });
    // A token the issuer never signed: 401 invalid_token, before any tool runs.
    const forgedToken = await fetch(mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: 'Bearer eyJhbGciOiJFZERTQSJ9.e30.AAAA' },
      body: JSON.stringify(call),
    });
    expect(forgedToken.status).toBe(401);
    expect(forgedToken.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The token endpoint is relayed for POST only, with the issuer's own OAuth errors.
    expect((await fetch(new URL('/issuer/oauth/token', demo.url))).status).toBe(404);
    const noGrant = await fetch(new URL('/issuer/oauth/token', demo.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password',
    });
    expect(noGrant.status).toBe(400);
    expect(((await noGrant.json()) as { error: string }).error).toBe('unsupported_grant_type');

    // Consent with a challenge the provider never issued: refused before any signature is checked.
    const forged = await post('/provider/grants', {
      consent: { type: 'UserConsent', proof: { challenge: 'not-ours' } },
      agentCredential: {},
    });
    expect(forged.status).toBe(403);
    const refusal = (await forged.json()) as { granted: boolean; checks: Array<{ check: string; ok: boolean }> };
    expect(refusal.granted).toBe(false);
    expect(refusal.checks).toEqual([
      expect.objectContaining({ check: 'challenge is ours, unexpired and unused', ok: false }),
    ]);

    // A consent signed by someone other than the named user fails the signature check.
    const { challenge, provider } = (await (await fetch(new URL('/provider/consent', demo.url))).json()) as {
      challenge: string;
      provider: string;
    };
    const wrongSigner = await post('/provider/grants', {
      consent: {
        type: 'UserConsent',
        user: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        agent: 'did:key:z6Mk',
        provider,
        privilegeScopes: ['files:read'],
        proof: { type: 'DataIntegrityProof', challenge },
      },
      agentCredential: {},
    });
    expect(wrongSigner.status).toBe(403);
    const checks = ((await wrongSigner.json()) as { checks: Array<{ check: string; ok: boolean }> }).checks;
    expect(checks.at(-1)).toEqual(
      expect.objectContaining({ ok: false, check: expect.stringContaining("user's signature") }),
    );

    expect((await post('/provider/grants', 'not json')).status).toBe(400);
    expect((await post('/provider/grants', '{"consent":{},"agentCredential":{},"consent":{}}')).status).toBe(400);
    expect((await post('/provider/grants', 'x'.repeat(40_000))).status).toBe(413);
    expect((await post('/provider/refusals', { reason: 'not a code', action: 'GET /' })).status).toBe(400);
    const badRevoke = await post('/operator/revoke', { vcId: 42 });
    expect(badRevoke.status).toBe(400);
    expect(((await badRevoke.json()) as { error: { code: string } }).error.code).toBe('MALFORMED');
    // The issuer's own refusal passes through: an unknown credential is its 404, not a 500.
    const unknown = await post('/operator/revoke', { vcId: `urn:uuid:${crypto.randomUUID()}` });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('CREDENTIAL_NOT_FOUND');

    // Static files never leave the build directory.
    expect((await fetch(new URL('/..%2f..%2fetc/passwd', demo.url))).status).toBe(404);
  });

  it('on a busy port, says so in one line naming DEMO_PORT, and leaves no temp directory (they hold the secrets)', async () => {
    const port = new URL(demo.url).port;
    const demoDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('mandate-demo-'));
    const before = demoDirs();
    await expect(startDemo({ port: Number(port) })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(demoDirs()).toEqual(before);
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'demo/main.ts'],
        { env: { ...process.env, DEMO_PORT: port }, timeout: 60_000 },
        (error, _stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
      );
      child.stdin?.end();
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `mandate demo: port ${port} is in use (is the demo already running?); set DEMO_PORT to use another port\n`,
    );
    expect(demoDirs()).toEqual(before);
  }, 90_000);
});

describe("the demo's MCP server, with clients nobody here wrote", () => {
  const INSECURE = { [oauth.allowInsecureRequests]: true } as const;
  const memoryWallet = () =>
    Wallet.open({ keyStore: createMemoryKeyStore(), credentialStore: createMemoryCredentialStore() });

  /** What the page's step 4 makes, from Node: an agent enrolled with the operator's token, a sub-agent with files:read. */
  async function delegatedSubAgent(mcp: string) {
    const minted = await fetch(new URL('/operator/enrollment-token', demo.url), { method: 'POST' });
    const { response } = (await minted.json()) as { response: { token: string } };
    const agent = await memoryWallet();
    await new IssuerClient({ baseUrl: demo.issuer.url, allowInsecureHttp: true }).onboard(response.token, {
      custody: 'self',
      wallet: agent,
    });
    const sub = await memoryWallet();
    const { chain } = await agent.delegate({ to: sub.did, scopes: ['files:read'], domains: [DEMO_TARGET, mcp] });
    await sub.addCredentials(chain);
    return { agent, sub };
  }

  it('oauth4webapi exchanges the chain for a DPoP-bound token; the MCP SDK client calls read_file with it and is refused write_file', async () => {
    const mcp = new URL('/mcp', demo.url).href;
    const { agent, sub } = await delegatedSubAgent(mcp);
    // Discovery the way a client does it: the resource's RFC 9728 document names the issuer.
    const metadata = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', demo.url))).json()) as {
      authorization_servers: string[];
    };
    const issuer = new URL(metadata.authorization_servers[0]!);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }),
    );
    const client: oauth.Client = { client_id: sub.did };
    const keys = await oauth.generateKeyPair('Ed25519');
    const dpop = oauth.DPoP(client, keys);
    const vp = await sub.present({
      target: mcp,
      // Bound to the DPoP key (docs/oauth.md §Binding): only this key's holder can exchange it.
      challenge: await dpopChallenge(keys.publicKey),
      scopes: ['files:read'],
      trustedIssuers: [demo.issuer.ctx.issuer.did],
      grantIssuers: [],
    });
    const exchanged = await oauth.processGenericTokenEndpointResponse(
      as,
      client,
      await oauth.genericTokenEndpointRequest(
        as,
        client,
        oauth.None(),
        'urn:ietf:params:oauth:grant-type:token-exchange',
        {
          subject_token: encodePresentationHeader(vp).slice('VP '.length),
          subject_token_type: 'urn:mandate:params:oauth:token-type:presentation',
          resource: mcp,
        },
        { ...INSECURE, DPoP: dpop },
      ),
    );
    expect(exchanged).toMatchObject({ token_type: 'dpop', scope: 'files:read' });

    // Every request of the SDK's transport carries the token and a fresh proof (oauth4webapi's).
    const dpopFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      try {
        const body = typeof init?.body === 'string' ? init.body : null;
        const headers = new Headers(init?.headers);
        const method = init?.method ?? 'GET';
        const options = { ...INSECURE, DPoP: dpop };
        return await oauth.protectedResourceRequest(
          exchanged.access_token,
          method,
          new URL(url),
          headers,
          body,
          options,
        );
      } catch (error) {
        // A refusal with a challenge (403 insufficient_scope) goes to the SDK as the answer it is.
        if (error instanceof oauth.WWWAuthenticateChallengeError) return error.response;
        throw error;
      }
    };
    const sdk = new Client({ name: 'sub-agent', version: '1.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(mcp), { fetch: dpopFetch }));
    expect((await sdk.listTools()).tools.map((t) => t.name)).toEqual(['list_files', 'read_file']);
    const read = await sdk.callTool({ name: 'read_file', arguments: { name: 'q3-report' } });
    const [output, caller] = (read.content as Array<{ text: string }>).map((c) => c.text);
    expect(output).toBe('Q3 report: revenue 4.2 M€ (+12 %), 3 new customers, churn 1.1 %.');
    expect(JSON.parse(caller ?? '')).toMatchObject({
      caller: { agentDid: sub.did, delegators: [agent.did], scopes: ['files:read'], via: 'token' },
    });
    // The SDK (1.32.2) names the answer's body, not its status: mcpAuth's 403 refusal.
    await expect(sdk.callTool({ name: 'write_file', arguments: { name: 'q3-report', text: 'x' } })).rejects.toThrow(
      '"error":"insufficient_scope","error_description":"calling write_file needs files:write","reason":"INSUFFICIENT_SCOPE","scope":"files:write"',
    );
    await sdk.close();
  });
});
