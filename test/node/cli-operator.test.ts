// The `mandate` CLI as an operator runs it: the real binary (node bin/mandate.mjs) against a
// real issuer on an ephemeral port with a temp database, checking what is printed and the exit
// code of every outcome (docs/cli.md §Exit codes). Spawns run in parallel where independent,
// since each one starts a Node process.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../cli/errors.ts';
import { mintToken, onboardServerAgent, startTestIssuer, TEST_ADMIN_KEY, type TestIssuer } from '../support/issuer.ts';

const BIN = fileURLToPath(new URL('../../bin/mandate.mjs', import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

let issuer: TestIssuer;
let issuerDid: string;
let dir: string;

/** Runs the binary with only the variables given (no inherited MANDATE_* or SERVICE_* ones). */
function mandate(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<CliResult> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: { ...base, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}

/** An operator's shell: issuer URL and admin key from the environment. */
function operator(...args: string[]): Promise<CliResult> {
  return mandate(args, { MANDATE_URL: issuer.url, MANDATE_ADMIN_KEY: TEST_ADMIN_KEY });
}

/** Asserts the exit code and that stderr names each of `messages`. */
function exits(result: CliResult, code: number, ...messages: string[]): void {
  expect(result.code, result.stdout + result.stderr).toBe(code);
  for (const message of messages) expect(result.stderr).toContain(message);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
function json(result: CliResult): any {
  expect(result.stderr, result.stderr).toBe('');
  return JSON.parse(result.stdout);
}

function noSecret(...results: CliResult[]): void {
  for (const r of results) expect(r.stdout + r.stderr).not.toContain(TEST_ADMIN_KEY);
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  issuerDid = (await issuer.call('/v1/health')).json.issuer;
  dir = mkdtempSync(join(tmpdir(), 'mandate-cli-'));
});

afterAll(async () => {
  await issuer?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mandate CLI: help, usage and offline commands', () => {
  it('prints help for the CLI and a command, and exits 2 with a usage error on bad input', async () => {
    const [top, command, noArgs, unknownOption, badState, missingArg, extraArg] = await Promise.all([
      mandate(['--help']),
      mandate(['vcs', 'revoke', '--help']),
      mandate([]),
      mandate(['tokens', 'mint', '--bogus']),
      mandate(['tokens', 'list', '--state', 'lost'], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
      mandate(['vcs', 'show']),
      mandate(['keys', 'generate', TEST_ADMIN_KEY]),
    ]);
    expect(top.code).toBe(EXIT.OK);
    for (const c of ['tokens mint', 'agents show', 'vcs renew', 'status-list create', 'dids remove-service', 'audit verify', 'verify', 'keys generate']) expect(top.stdout).toContain(c);
    expect(top.stdout).toMatch(/Exit codes: 0 ok .* 2 usage .* 3 denied .* 4 issuer unreachable/);
    expect(command.code).toBe(EXIT.OK);
    expect(command.stdout).toContain('Usage: mandate vcs revoke <vcId> [options]');
    expect(command.stdout).toContain('--reason <text>');
    exits(noArgs, EXIT.USAGE, 'Usage: mandate <command>');
    exits(unknownOption, EXIT.USAGE, "Unknown option '--bogus'", '[USAGE]');
    exits(badState, EXIT.USAGE, '--state must be one of outstanding, used, expired [ARGUMENT_INVALID]');
    exits(missingArg, EXIT.USAGE, 'missing <vcId>');
    // A secret typed in the wrong place is refused without being echoed.
    expect(extraArg.code).toBe(EXIT.USAGE);
    noSecret(badState, extraArg);
  });

  it('keys generate prints a fresh 32-byte hex SERVICE_SIGNING_KEY', async () => {
    const [plain, asJson] = await Promise.all([mandate(['keys', 'generate']), mandate(['keys', 'generate', '--json'])]);
    expect(plain.code).toBe(EXIT.OK);
    expect(plain.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    const doc = json(asJson);
    expect(doc.serviceSigningKey).toMatch(/^[0-9a-f]{64}$/);
    expect(`${doc.serviceSigningKey}\n`).not.toBe(plain.stdout);
    expect(doc.publicKeyMultibase).toMatch(/^z6Mk/);
  });

  it('refuses operator commands without an admin key, and unreachable issuers exit 4', async () => {
    const wrongKey = 'wrong-admin-key-9876543210-abcdefghijklmnop';
    const [noKey, unreachable, cleartext, unauthorized] = await Promise.all([
      mandate(['agents', 'list'], { MANDATE_URL: issuer.url }),
      mandate(['tokens', 'list', '--json', '--timeout', '5'], { API_BASE_URL: 'http://127.0.0.1:1', SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY }),
      // The admin key would travel in clear to a non-loopback host: refused before any request.
      mandate(['agents', 'list', '--url', 'http://issuer.example.com'], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
      mandate(['agents', 'list', '--admin-key', wrongKey], { MANDATE_URL: issuer.url }),
    ]);
    exits(cleartext, EXIT.USAGE, 'plain http is refused except to loopback hosts', '[CONFIG_INVALID]');
    exits(unauthorized, EXIT.DENIED, '[UNAUTHORIZED, HTTP 401]');
    expect(unauthorized.stderr).not.toContain(wrongKey);
    exits(noKey, EXIT.USAGE, 'needs the admin key: set MANDATE_ADMIN_KEY', '[ADMIN_KEY_MISSING]');
    expect(unreachable.code).toBe(EXIT.UNREACHABLE);
    expect(JSON.parse(unreachable.stderr)).toEqual({ error: { code: 'NETWORK_ERROR', message: 'the issuer could not be reached', exitCode: 4 } });
    expect(unreachable.stdout).toBe('');
    noSecret(noKey, unreachable, cleartext);
  });

  it('exits 5 when the server answers 5xx or something that is not the API', async () => {
    const base = inject('fixtureBaseUrl');
    const host = (path: string, status: string, body: string, type = 'application/json') =>
      fetch(`${base}/host${path}`, { method: 'PUT', body, headers: { 'content-type': type, 'x-status': status } });
    await host('/cli-broken/v1/audit/verify', '500', JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'database is locked' } }));
    await host('/cli-html/v1/audit/verify', '200', '<html>a proxy login page</html>', 'text/html');
    const [failing, notApi] = await Promise.all([
      mandate(['audit', 'verify', '--url', `${base}/cli-broken`], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
      mandate(['audit', 'verify', '--url', `${base}/cli-html`], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
    ]);
    exits(failing, EXIT.ISSUER_FAILED, 'database is locked [INTERNAL_ERROR, HTTP 500]');
    exits(notApi, EXIT.ISSUER_FAILED, '[RESPONSE_INVALID]');
  });

  it('shows characters a terminal would act on as escapes: an issuer\'s message cannot clear the screen or add a line', async () => {
    const base = inject('fixtureBaseUrl');
    const message = '\u001b]0;pwned\u0007\u001b[2J\u001b[32maudit chain intact\u001b[0m\nsecond line \u202eevil\u009b';
    await fetch(`${base}/host/cli-hostile/v1/audit/verify`, { method: 'PUT', body: JSON.stringify({ error: { code: 'INTERNAL_ERROR', message } }), headers: { 'content-type': 'application/json', 'x-status': '500' } });
    const hostile = await mandate(['audit', 'verify', '--url', `${base}/cli-hostile`], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY });
    expect(hostile.code).toBe(EXIT.ISSUER_FAILED);
    expect(hostile.stderr).toBe(
      'mandate: \\u001b]0;pwned\\u0007\\u001b[2J\\u001b[32maudit chain intact\\u001b[0m\\nsecond line \\u202eevil\\u009b [INTERNAL_ERROR, HTTP 500]\n',
    );
  });
});

// Each test spawns several CLI processes; on a loaded machine one can take seconds to start.
describe('mandate CLI against a real issuer', { timeout: 120_000 }, () => {
  it('mints and lists enrollment tokens (the value shown once, never listed)', async () => {
    const minted = await operator('tokens', 'mint', '--scope', 'files:read,files:write', '--domain', 'files.example.com', '--max-depth', '1', '--ttl', '600');
    expect(minted.code).toBe(EXIT.OK);
    const token = /^ {2}(\S{20,})$/m.exec(minted.stdout)?.[1] as string;
    expect(minted.stdout).toContain('shown once');
    const tokenId = /token id\s+(\S+)/.exec(minted.stdout)?.[1] as string;
    const [listed, listedJson, refused] = await Promise.all([
      operator('tokens', 'list', '--state', 'outstanding'),
      operator('tokens', 'list', '--json'),
      operator('tokens', 'mint', '--scope', 'files:read'),
    ]);
    expect(listed.code).toBe(EXIT.OK);
    expect(listed.stdout).toMatch(/^TOKEN ID\s+STATE\s+SCOPES\s+DEPTH\s+DOMAINS\s+EXPIRES\s+AGENT$/m);
    expect(listed.stdout).toMatch(new RegExp(`${tokenId}\\s+outstanding\\s+files:read,files:write\\s+1\\s+files.example.com`));
    expect(listed.stdout + listedJson.stdout).not.toContain(token);
    expect(json(listedJson).tokens).toEqual([expect.objectContaining({ tokenId, state: 'outstanding', requestedDomains: ['files.example.com'] })]);
    exits(refused, EXIT.USAGE, 'at least one --domain is required');
    noSecret(minted, listed, listedJson);
  });

  it('lists and shows agents, and issues, renews, revokes and shows credentials', async () => {
    const agent = await onboardServerAgent(issuer, await mintToken(issuer));
    // Credentials are issued to another agent, so this one's current credential stays put.
    const other = await onboardServerAgent(issuer, await mintToken(issuer));
    const [list, show, vcShow, missing, issued] = await Promise.all([
      operator('agents', 'list'),
      operator('agents', 'show', agent.agentDid, '--json'),
      mandate(['vcs', 'show', agent.vcId], { MANDATE_URL: issuer.url }), // public: no admin key
      operator('vcs', 'show', 'urn:uuid:00000000-0000-4000-8000-000000000000'),
      operator('vcs', 'issue', '--subject', other.agentDid, '--scope', 'files:read', '--domain', 'files.example.com', '--validity', '3600', '--json'),
    ]);
    expect(list.code).toBe(EXIT.OK);
    expect(list.stdout).toMatch(/^DID\s+CUSTODY\s+SCOPES\s+DEPTH\s+DOMAINS\s+CREDENTIAL\s+CREATED$/m);
    expect(list.stdout).toContain(`${agent.agentDid}  server   files:read,files:write  2      files.example.com  ${agent.vcId}`);
    expect(json(show)).toMatchObject({ did: agent.agentDid, custody: 'server', currentCredential: { vcId: agent.vcId, state: 'active' } });
    expect(vcShow.code).toBe(EXIT.OK);
    expect(vcShow.stdout).toMatch(new RegExp(`^vc id\\s+${agent.vcId}$`, 'm'));
    expect(vcShow.stdout).toMatch(/^state\s+active$/m);
    expect(vcShow.stdout).toMatch(/scopes\s+files:read,files:write/);
    exits(missing, EXIT.DENIED, '[CREDENTIAL_NOT_FOUND, HTTP 404]');

    const issuedVc = json(issued);
    expect(issuedVc).toMatchObject({ type: 'AgentCredential', subjectDid: other.agentDid, state: 'active' });
    const renewed = await operator('vcs', 'renew', issuedVc.vcId);
    expect(renewed.code).toBe(EXIT.OK);
    expect(renewed.stdout).toContain(`Renewed (supersedes ${issuedVc.vcId})`);
    const newVcId = /vc id\s+(\S+)/.exec(renewed.stdout)?.[1] as string;
    const revoked = await operator('vcs', 'revoke', newVcId, '--reason', 'key compromise');
    // The credential it superseded carried the same authority: revoked with it.
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(issuedVc.vcId)}`)).json).toMatchObject({ state: 'revoked', supersededBy: newVcId });
    expect(revoked.code).toBe(EXIT.OK);
    expect(revoked.stdout).toMatch(/^Revoked\.\n/);
    expect(revoked.stdout).toMatch(/state\s+revoked/);
    const [again, renewRevoked] = await Promise.all([operator('vcs', 'revoke', newVcId), operator('vcs', 'renew', newVcId)]);
    expect(again.code).toBe(EXIT.OK);
    expect(again.stdout).toMatch(/^Already revoked\./);
    exits(renewRevoked, EXIT.DENIED, '[CREDENTIAL_REVOKED, HTTP 409]');
    noSecret(list, show, issued, renewed, revoked, renewRevoked);
  });

  it('creates and shows status lists with their fill level', async () => {
    const [created, agent] = await Promise.all([
      operator('status-list', 'create', '--purpose', 'revocation', '--id', 'cli-list', '--no-default', '--json'),
      mintToken(issuer).then((token) => onboardServerAgent(issuer, token)),
    ]);
    expect(json(created)).toMatchObject({ listId: 'cli-list', purpose: 'revocation', url: `${issuer.url}/v1/status-list/cli-list` });
    const entry = (await issuer.call(`/v1/vcs/${encodeURIComponent(agent.vcId)}`)).json.statusLists.find((s: { purpose: string }) => s.purpose === 'revocation');
    const [dupAgain, fresh, missing, before] = await Promise.all([
      operator('status-list', 'create', '--purpose', 'revocation', '--id', 'cli-list'),
      mandate(['status-list', 'show', 'cli-list'], { MANDATE_URL: issuer.url }),
      mandate(['status-list', 'show', 'no-such-list'], { MANDATE_URL: issuer.url }),
      mandate(['status-list', 'show', entry.listId, '--json'], { MANDATE_URL: issuer.url }),
    ]);
    exits(dupAgain, EXIT.DENIED, '[STATUS_LIST_EXISTS, HTTP 409]');
    expect(fresh.code).toBe(EXIT.OK);
    expect(fresh.stdout).toMatch(new RegExp(`issuer\\s+${issuerDid}`));
    expect(fresh.stdout).toMatch(/entries set\s+0 of 131072 \(0\.000%\)/);
    exits(missing, EXIT.DENIED, '[STATUS_LIST_NOT_FOUND, HTTP 404]');

    // A revocation shows up as one more set entry on the credential's list.
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(agent.vcId)}/revoke`, { admin: true, body: {} })).status).toBe(200);
    const after = await mandate(['status-list', 'show', entry.listId, '--json'], { MANDATE_URL: issuer.url });
    expect(json(after)).toMatchObject({ listId: entry.listId, purpose: 'revocation', set: json(before).set + 1 });
  });

  it('creates, resolves, edits and deactivates a hosted DID', async () => {
    const created = await operator('dids', 'create', '--name', 'cli-test', '--json');
    const did = json(created).did as string;
    expect(json(created)).toMatchObject({ kind: 'managed', serverHeldKey: true, deactivated: false });
    const added = await operator('dids', 'add-service', did, '--type', 'LinkedDomains', '--endpoint', 'https://files.example.com/', '--id', 'site');
    expect(added.code).toBe(EXIT.OK);
    expect(added.stdout).toMatch(new RegExp(`${did.replace(/[.]/g, '\\.')}#site\\s+LinkedDomains\\s+https://files.example.com/`));
    const [resolved, duplicate] = await Promise.all([
      mandate(['dids', 'resolve', did], { MANDATE_URL: issuer.url }),
      operator('dids', 'add-service', did, '--type', 'LinkedDomains', '--endpoint', 'https://other.example.com/', '--id', 'site'),
    ]);
    expect(resolved.code).toBe(EXIT.OK);
    expect(resolved.stdout).toMatch(/deactivated\s+no/);
    expect(resolved.stdout).toMatch(/#key-1\s+Multikey\s+z6Mk|Multikey\s+z6Mk/);
    expect(resolved.stdout).toContain('LinkedDomains');
    exits(duplicate, EXIT.DENIED, '[SERVICE_EXISTS, HTTP 409]');
    const removed = await operator('dids', 'remove-service', did, 'site');
    expect(removed.code).toBe(EXIT.OK);
    expect(removed.stdout).toMatch(/\nServices:\n\(none\)/);
    const deactivated = await operator('dids', 'deactivate', did, '--reason', 'retired');
    expect(deactivated.code).toBe(EXIT.OK);
    expect(deactivated.stdout).toMatch(/deactivated\s+yes/);
    const twice = await operator('dids', 'deactivate', did);
    exits(twice, EXIT.DENIED, '[DID_DEACTIVATED, HTTP 410]');
  });

  it('verifies a presentation locally: valid exits 0, tampered exits 3 with the reason', async () => {
    const agent = await onboardServerAgent(issuer, await mintToken(issuer));
    const vp = (await issuer.call(`/v1/agents/${encodeURIComponent(agent.agentDid)}/vp`, { admin: true, body: { targetService: 'files.example.com', challenge: 'cli-nonce-1' } })).json;
    const good = join(dir, 'vp.json');
    writeFileSync(good, JSON.stringify(vp));
    const tampered = structuredClone(vp);
    tampered.verifiableCredential[0].credentialSubject.privilegeScopes.push('files:admin');
    const bad = join(dir, 'tampered.json');
    writeFileSync(bad, JSON.stringify(tampered));
    writeFileSync(join(dir, 'not-json.json'), '{"@context": [');
    const common = ['--trusted-issuer', issuerDid, '--target', 'files.example.com', '--challenge', 'cli-nonce-1', '--allow-http-loopback'];
    const [valid, denied, deniedJson, wrongTarget, noFile, notJson] = await Promise.all([
      mandate(['verify', good, ...common]),
      mandate(['verify', bad, ...common]),
      mandate(['verify', '-', ...common, '--json'], {}, JSON.stringify(tampered)),
      mandate(['verify', good, ...common.slice(0, 2), '--target', 'mail.example.com', '--allow-http-loopback']),
      mandate(['verify', join(dir, 'absent.json'), ...common]),
      mandate(['verify', join(dir, 'not-json.json'), '--target', 'files.example.com', '--allow-self-signed']),
    ]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(EXIT.OK);
    expect(valid.stdout).toContain('✓ presentation');
    expect(valid.stdout).toContain('✓ status');
    expect(valid.stdout).toContain(`VALID  agent ${agent.agentDid}`);
    expect(valid.stdout).toContain('effective scopes: files:read, files:write');
    expect(denied.code).toBe(EXIT.DENIED);
    // The presentation's proof covers the credentials it carries: the edit breaks it first.
    expect(denied.stdout).toMatch(/✗ presentation {2}VP_SIGNATURE_INVALID/);
    expect(denied.stdout).toMatch(/DENIED {2}VP_SIGNATURE_INVALID: .* \(check: presentation\)/);
    expect(deniedJson.code).toBe(EXIT.DENIED);
    expect(json(deniedJson)).toMatchObject({ valid: false, reason: 'VP_SIGNATURE_INVALID', failedCheck: 'presentation' });
    expect(wrongTarget.code).toBe(EXIT.DENIED);
    expect(wrongTarget.stdout).toContain('DENIED  TARGET_MISMATCH');
    exits(noFile, EXIT.USAGE, '[FILE_UNREADABLE]');
    exits(notJson, EXIT.USAGE, 'is not JSON', '[FILE_INVALID]');
  });

  it('tails the audit log with refusals and their reason codes, and reports a broken chain with exit 3', async () => {
    const [tail, refusals, intact, badTime] = await Promise.all([
      operator('audit', 'tail', '--lines', '3', '--json'),
      operator('audit', 'tail', '--event', 'REQUEST_REFUSED', '--lines', '50'),
      operator('audit', 'verify'),
      operator('audit', 'tail', '--from', 'yesterday'),
    ]);
    const records = json(tail).records as { seq: number }[];
    expect(records).toHaveLength(3);
    expect(records[1]!.seq).toBe(records[0]!.seq + 1);
    expect(refusals.code).toBe(EXIT.OK);
    expect(refusals.stdout).toMatch(/^SEQ\s+TIME\s+EVENT\s+AGENT\s+ACTOR\s+REASON$/m);
    expect(refusals.stdout).toMatch(/REQUEST_REFUSED .*CREDENTIAL_REVOKED/);
    expect(refusals.stdout).toMatch(/REQUEST_REFUSED .*STATUS_LIST_EXISTS/);
    expect(intact.code).toBe(EXIT.OK);
    expect(intact.stdout).toMatch(/^audit chain intact: \d+ records, head [0-9a-f]{64}\n$/);
    exits(badTime, EXIT.USAGE, '[ARGUMENT_INVALID]');

    // Text an outsider chose (a provider event's result, say) is shown, not obeyed by the terminal.
    issuer.running.ctx.db.sqlite.prepare('UPDATE audit SET reason = ? WHERE seq = (SELECT MAX(seq) FROM audit)').run('ok\u001b[2J\u001b[1A');
    const tailed = await operator('audit', 'tail', '--lines', '1');
    expect(tailed.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(tailed.stdout).toContain('ok\\u001b[2J\\u001b[1A');

    issuer.running.ctx.db.sqlite.exec(`UPDATE audit SET reason = 'edited' WHERE seq = 2`);
    const broken = await operator('audit', 'verify');
    expect(broken.code).toBe(EXIT.DENIED);
    expect(broken.stdout).toMatch(/^audit chain BROKEN at record 2 \(of \d+\)\n$/);
  });
});
