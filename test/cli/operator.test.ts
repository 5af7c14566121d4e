// The `mandate` CLI as an operator runs it, against a real issuer on an ephemeral port with a
// temp database, checking what is printed and the exit code of every outcome (docs/cli.md §Exit
// codes). Each command line runs in this process through cli/main.ts's run(), as
// bin/mandate.mjs runs it, with its own environment (never process.env) and an Io that captures
// stdout and stderr and feeds stdin; a Node process and tsx's loader per command (89 of them)
// took a minute. The last describe spawns the real binary a few times, for what only a process
// shows: the loader in a checkout, the exit code through process.exit, output flushed before it,
// a piped stdin.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { explainUnreachable } from '../../cli/command.ts';
import { EXIT } from '../../cli/errors.ts';
import { run } from '../../cli/main.ts';
import { IssuerClientError } from '../../wallet/client/errors.ts';
import { newIdentity } from '../support/agents.ts';
import { outsideQuery } from '../support/database.ts';
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

/**
 * Runs a command line in this process with only the variables given (no inherited MANDATE_* or
 * SERVICE_* ones) and `stdin` as its standard input, capturing what it prints.
 */
async function mandate(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(
    args,
    { ...env },
    {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      // As a pipe delivers it: bytes, then the end.
      async *stdin() {
        if (stdin !== '') yield new TextEncoder().encode(stdin);
      },
    },
  );
  return { code, stdout, stderr };
}

/** Runs the binary, node bin/mandate.mjs, with only the variables given and `stdin` piped to it. */
function binary(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<CliResult> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() };
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...base, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
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

interface FakeServer {
  url: string;
  /** The path and query of each request, in order. */
  requests: string[];
  close(): void;
}

/** An HTTP server on 127.0.0.1 that answers as `handler` says and counts what it is asked. */
async function fakeServer(
  handler: (req: IncomingMessage, res: ServerResponse, hit: number) => void | Promise<void>,
): Promise<FakeServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    void handler(req, res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** An audit record as the API shapes it, for fake servers. */
function auditRecord(seq: number): Record<string, unknown> {
  return {
    seq,
    id: `urn:uuid:00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    at: '2026-01-01T00:00:00.000Z',
    event: 'REQUEST_REFUSED',
    actor: 'anonymous',
    prevHash: '0'.repeat(64),
    hash: '1'.repeat(64),
  };
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
    for (const c of [
      'tokens mint',
      'agents show',
      'vcs renew',
      'status-list create',
      'dids remove-service',
      'audit verify',
      'verify',
      'keys generate',
    ])
      expect(top.stdout).toContain(c);
    expect(top.stdout).toMatch(/Exit codes: 0 ok .* 2 usage .* 3 denied .* 4 issuer unreachable/);
    expect(command.code).toBe(EXIT.OK);
    expect(command.stdout).toContain('Usage: mandate vcs revoke <vcId> [options]');
    expect(command.stdout).toContain('--reason <text>');
    exits(noArgs, EXIT.USAGE, 'Usage: mandate <command>');
    exits(unknownOption, EXIT.USAGE, "Unknown option '--bogus'", '[USAGE]');
    exits(badState, EXIT.USAGE, '--state must be one of outstanding, used, expired [ARGUMENT_INVALID]');
    exits(missingArg, EXIT.USAGE, 'missing <vcId>');
    // Caught here rather than sent to the issuer (which answered them 404 / 400, exit 3).
    const [emptyArg, nameWithKey] = await Promise.all([
      mandate(['vcs', 'show', ' ']),
      mandate(['dids', 'create', '--method', 'key', '--name', 'one'], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
    ]);
    exits(emptyArg, EXIT.USAGE, '<vcId> is empty', '[USAGE]');
    exits(nameWithKey, EXIT.USAGE, '--name names a did:web path segment', '[USAGE]');
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
      mandate(['tokens', 'list', '--json', '--timeout', '5'], {
        API_BASE_URL: 'http://127.0.0.1:1',
        SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY,
      }),
      // The admin key would travel in clear to a non-loopback host: refused before any request.
      mandate(['agents', 'list', '--url', 'http://issuer.example.com'], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
      mandate(['agents', 'list', '--admin-key', wrongKey], { MANDATE_URL: issuer.url }),
    ]);
    // In the CLI's terms: no flag sets the library's allowInsecureHttp, so the message names none.
    exits(cleartext, EXIT.USAGE, 'the issuer URL must be https (plain http only to this machine', '[ARGUMENT_INVALID]');
    expect(cleartext.stderr).not.toContain('allowInsecureHttp');
    exits(unauthorized, EXIT.DENIED, '[UNAUTHORIZED, HTTP 401]');
    expect(unauthorized.stderr).not.toContain(wrongKey);
    exits(noKey, EXIT.USAGE, 'needs the admin key: set MANDATE_ADMIN_KEY', '[ADMIN_KEY_MISSING]');
    expect(unreachable.code).toBe(EXIT.UNREACHABLE);
    // The URL it tried and what set it: after `PORT=31787 npm start` the CLI still tries 8787.
    expect(JSON.parse(unreachable.stderr)).toEqual({
      error: {
        code: 'NETWORK_ERROR',
        message: 'the issuer could not be reached; tried http://127.0.0.1:1 (set by API_BASE_URL)',
        exitCode: 4,
      },
    });
    expect(unreachable.stderr.split('\n')).toHaveLength(2); // one line, like every error
    expect(unreachable.stdout).toBe('');
    noSecret(noKey, unreachable, cleartext);
  });

  it('says which URL an unreachable issuer was tried at, and which setting chose it', async () => {
    const [fromEnv, fromFlag] = await Promise.all([
      mandate(['tokens', 'list', '--timeout', '5'], {
        MANDATE_URL: 'http://127.0.0.1:1',
        MANDATE_ADMIN_KEY: TEST_ADMIN_KEY,
      }),
      // The flag wins over the variables; user-info in the URL (a password) is never echoed.
      mandate(['agents', 'list', '--timeout', '5', '--url', 'http://localhost:1/base/'], {
        MANDATE_URL: issuer.url,
        MANDATE_ADMIN_KEY: TEST_ADMIN_KEY,
      }),
    ]);
    exits(
      fromEnv,
      EXIT.UNREACHABLE,
      'mandate: the issuer could not be reached; tried http://127.0.0.1:1 (set by MANDATE_URL) [NETWORK_ERROR]',
    );
    exits(
      fromFlag,
      EXIT.UNREACHABLE,
      'mandate: the issuer could not be reached; tried http://localhost:1/base (set by --url) [NETWORK_ERROR]',
    );
    noSecret(fromEnv, fromFlag);
    // With nothing set (port 8787 may be taken on this machine, so not through a real call):
    // the default, and how to change it.
    const unset = explainUnreachable(new IssuerClientError('NETWORK_ERROR', 'the issuer could not be reached'), {}, {});
    expect((unset as Error).message).toBe(
      'the issuer could not be reached; tried http://127.0.0.1:8787 (the default: set MANDATE_URL or pass --url to the URL the issuer printed when it started)',
    );
  });

  it('prints its version, and suggests the closest command or option for a typo', async () => {
    const [version, group, sub, alone, option, far] = await Promise.all([
      mandate(['--version']),
      mandate(['agnets', 'list']),
      mandate(['vcs', 'revok', 'urn:uuid:x']),
      mandate(['revoke-secret', 'did:key:z6Mk']),
      mandate(['verify', 'vp.json', '--chalenge', 'n']),
      mandate(['frobnicate']),
    ]);
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(version.code).toBe(EXIT.OK);
    expect(version.stdout).toBe(`${manifest.version}\n`);
    exits(group, EXIT.USAGE, 'unknown command "agnets": did you mean "agents"?');
    exits(sub, EXIT.USAGE, 'unknown sub-command "vcs revok": did you mean "vcs revoke"?');
    exits(alone, EXIT.USAGE, 'unknown command "revoke-secret": did you mean "agents revoke-secret"?');
    exits(option, EXIT.USAGE, `Unknown option '--chalenge': did you mean "--challenge"?`);
    exits(far, EXIT.USAGE, 'unknown command "frobnicate" (see mandate --help)');
  });

  it('exits 5 when the server answers 5xx or something that is not the API', async () => {
    const base = inject('fixtureBaseUrl');
    const host = (path: string, status: string, body: string, type = 'application/json') =>
      fetch(`${base}/host${path}`, { method: 'PUT', body, headers: { 'content-type': type, 'x-status': status } });
    await host(
      '/cli-broken/v1/audit/verify',
      '500',
      JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'database is locked' } }),
    );
    await host('/cli-html/v1/audit/verify', '200', '<html>a proxy login page</html>', 'text/html');
    const [failing, notApi] = await Promise.all([
      mandate(['audit', 'verify', '--url', `${base}/cli-broken`], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
      mandate(['audit', 'verify', '--url', `${base}/cli-html`], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
    ]);
    exits(failing, EXIT.ISSUER_FAILED, 'database is locked [INTERNAL_ERROR, HTTP 500]');
    exits(notApi, EXIT.ISSUER_FAILED, '[RESPONSE_INVALID]');
  });

  it("shows characters a terminal would act on as escapes: an issuer's message cannot clear the screen or add a line", async () => {
    const base = inject('fixtureBaseUrl');
    const message = '\u001b]0;pwned\u0007\u001b[2J\u001b[32maudit chain intact\u001b[0m\nsecond line \u202eevil\u009b';
    await fetch(`${base}/host/cli-hostile/v1/audit/verify`, {
      method: 'PUT',
      body: JSON.stringify({ error: { code: 'INTERNAL_ERROR', message } }),
      headers: { 'content-type': 'application/json', 'x-status': '500' },
    });
    const hostile = await mandate(['audit', 'verify', '--url', `${base}/cli-hostile`], {
      MANDATE_ADMIN_KEY: TEST_ADMIN_KEY,
    });
    expect(hostile.code).toBe(EXIT.ISSUER_FAILED);
    expect(hostile.stderr).toBe(
      'mandate: \\u001b]0;pwned\\u0007\\u001b[2J\\u001b[32maudit chain intact\\u001b[0m\\nsecond line \\u202eevil\\u009b [INTERNAL_ERROR, HTTP 500]\n',
    );
  });

  it('audit tail ends against an issuer whose cursor never does: an empty page, a repeated cursor, or too many pages exit 5', async () => {
    const [empty, repeated, endless] = await Promise.all([
      // Always a new cursor, never a record.
      fakeServer((_req, res, hit) => answer(res, 200, { records: [], nextCursor: String(1_000_000 - hit) })),
      fakeServer((_req, res) => answer(res, 200, { records: [auditRecord(9)], nextCursor: '8' })),
      // One record and a fresh cursor per page: only the page bound ends it before 10 000 lines.
      fakeServer((_req, res, hit) =>
        answer(res, 200, { records: [auditRecord(1_000_000 - hit)], nextCursor: String(1_000_000 - hit) }),
      ),
    ]);
    try {
      const admin = { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY };
      const [fromEmpty, fromRepeated, fromEndless] = await Promise.all([
        mandate(['audit', 'tail', '--url', empty.url], admin),
        mandate(['audit', 'tail', '--url', repeated.url], admin),
        mandate(['audit', 'tail', '--url', endless.url, '--lines', '10000'], admin),
      ]);
      exits(fromEmpty, EXIT.ISSUER_FAILED, "the issuer's audit pages do not advance", '[RESPONSE_INVALID]');
      expect(empty.requests).toHaveLength(1);
      exits(fromRepeated, EXIT.ISSUER_FAILED, 'do not advance');
      expect(repeated.requests).toHaveLength(2);
      exits(fromEndless, EXIT.ISSUER_FAILED, 'did not reach 10000 records in 50 pages');
      expect(endless.requests).toHaveLength(50);
    } finally {
      for (const s of [empty, repeated, endless]) s.close();
    }
  });

  it('--timeout is one deadline for the whole command: retries and Retry-After waits stay inside it (exit 4)', async () => {
    const [busy, stalled] = await Promise.all([
      fakeServer((_req, res) =>
        answer(res, 503, { error: { code: 'UNAVAILABLE', message: 'busy' } }, { 'retry-after': '30' }),
      ),
      // Headers, then a body that never ends.
      fakeServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).write('{"agents": [')),
    ]);
    try {
      const admin = { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY };
      const [fromBusy, fromStalled, asJson] = await Promise.all([
        mandate(['agents', 'list', '--url', busy.url, '--timeout', '1'], admin),
        mandate(['agents', 'list', '--url', stalled.url, '--timeout', '1'], admin),
        mandate(['audit', 'verify', '--url', busy.url, '--timeout', '1', '--json'], admin),
      ]);
      // A GET is retried, but the 30 s Retry-After wait would end past the deadline.
      exits(fromBusy, EXIT.UNREACHABLE, 'no complete answer within --timeout 1 s', '[TIMEOUT]');
      exits(fromStalled, EXIT.UNREACHABLE, '[TIMEOUT]');
      expect(JSON.parse(asJson.stderr)).toEqual({
        error: { code: 'TIMEOUT', message: expect.stringContaining('--timeout 1 s'), exitCode: EXIT.UNREACHABLE },
      });
      // One request per command: no retry was started that could not finish in time.
      expect(busy.requests.map((r) => r.split('?')[0]).sort()).toEqual(['/v1/agents', '/v1/audit/verify']);
      expect(stalled.requests).toHaveLength(1);
    } finally {
      busy.close();
      stalled.close();
    }
  });

  it("shows an issuer's validation details on the error line, escaped, bounded and on one line", async () => {
    const details = [
      { path: 'json.requestedScopes.0', message: 'bad\u001b[2J\nscope' },
      { message: 'no path' },
      'not an issue',
      ...Array.from({ length: 12 }, (_, i) => ({ path: `json.x.${i}`, message: 'm' })),
    ];
    const hostile = await fakeServer((_req, res) =>
      answer(res, 400, { error: { code: 'VALIDATION_FAILED', message: 'invalid request body', details } }),
    );
    try {
      const [line, asJson] = await Promise.all([
        mandate(['tokens', 'mint', '--scope', 's', '--domain', 'd.example', '--url', hostile.url], {
          MANDATE_ADMIN_KEY: TEST_ADMIN_KEY,
        }),
        mandate(['tokens', 'mint', '--scope', 's', '--domain', 'd.example', '--url', hostile.url, '--json'], {
          MANDATE_ADMIN_KEY: TEST_ADMIN_KEY,
        }),
      ]);
      expect(line.code).toBe(EXIT.DENIED);
      expect(line.stderr).toBe(
        'mandate: invalid request body (json.requestedScopes.0: bad\\u001b[2J\\nscope; no path; ' +
          Array.from({ length: 8 }, (_, i) => `json.x.${i}: m`).join('; ') +
          '; and 4 more) [VALIDATION_FAILED, HTTP 400]\n',
      );
      expect(JSON.parse(asJson.stderr).error).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'invalid request body',
        status: 400,
        details,
        exitCode: EXIT.DENIED,
      });
    } finally {
      hostile.close();
    }
  });
});

describe('mandate CLI against a real issuer', () => {
  it('mints and lists enrollment tokens (the value shown once, never listed)', async () => {
    const minted = await operator(
      'tokens',
      'mint',
      '--scope',
      'files:read,files:write',
      '--domain',
      'files.example.com',
      '--max-depth',
      '1',
      '--ttl',
      '600',
    );
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
    expect(listed.stdout).toMatch(
      new RegExp(`${tokenId}\\s+outstanding\\s+files:read,files:write\\s+1\\s+files.example.com`),
    );
    expect(listed.stdout + listedJson.stdout).not.toContain(token);
    expect(json(listedJson).tokens).toEqual([
      expect.objectContaining({ tokenId, state: 'outstanding', requestedDomains: ['files.example.com'] }),
    ]);
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
      operator(
        'vcs',
        'issue',
        '--subject',
        other.agentDid,
        '--scope',
        'files:read',
        '--domain',
        'files.example.com',
        '--validity',
        '3600',
        '--json',
      ),
    ]);
    expect(list.code).toBe(EXIT.OK);
    expect(list.stdout).toMatch(/^DID\s+CUSTODY\s+SCOPES\s+DEPTH\s+DOMAINS\s+CREDENTIAL\s+CREATED$/m);
    expect(list.stdout).toContain(
      `${agent.agentDid}  server   files:read,files:write  2      files.example.com  ${agent.vcId}`,
    );
    expect(json(show)).toMatchObject({
      did: agent.agentDid,
      custody: 'server',
      currentCredential: { vcId: agent.vcId, state: 'active' },
    });
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
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(issuedVc.vcId)}`)).json).toMatchObject({
      state: 'revoked',
      supersededBy: newVcId,
    });
    expect(revoked.code).toBe(EXIT.OK);
    expect(revoked.stdout).toMatch(/^Revoked\.\n/);
    expect(revoked.stdout).toMatch(/state\s+revoked/);
    const [again, renewRevoked] = await Promise.all([
      operator('vcs', 'revoke', newVcId),
      operator('vcs', 'renew', newVcId),
    ]);
    expect(again.code).toBe(EXIT.OK);
    expect(again.stdout).toMatch(/^Already revoked\./);
    // An idempotent success for the CLI, recorded as what it is — not as a refusal.
    const audit = (await issuer.call('/v1/audit?order=desc&limit=20', { admin: true })).json.records as {
      event: string;
      reason: string;
      data: Record<string, unknown>;
    }[];
    const repeat = audit.find((r) => r.reason === 'CREDENTIAL_ALREADY_REVOKED');
    expect(repeat).toMatchObject({ event: 'CREDENTIAL_REVOKE_REPEATED' });
    expect(audit.filter((r) => r.event === 'REQUEST_REFUSED' && r.reason === 'CREDENTIAL_ALREADY_REVOKED')).toEqual([]);
    exits(renewRevoked, EXIT.DENIED, '[CREDENTIAL_REVOKED, HTTP 409]');
    noSecret(list, show, issued, renewed, revoked, renewRevoked);
  });

  it('suspends and reinstates, and says which other credentials an action reached (an old copy reaches its renewal)', async () => {
    const subject = newIdentity().did; // not enrolled: its credentials are exactly the two below
    const issued = json(await operator('vcs', 'issue', '--subject', subject, '--scope', 'files:read', '--json'));
    const renewed = json(await operator('vcs', 'renew', issued.vcId, '--json'));
    // Named: the old copy. Acted on: its newest renewal, then back down the line.
    const suspended = await operator('vcs', 'suspend', issued.vcId, '--reason', 'investigating');
    expect(suspended.code).toBe(EXIT.OK);
    expect(suspended.stdout).toMatch(
      /^Suspended\.\nAlso suspended \(1: renewals, predecessors or the agent's other credentials\):\n {2}\S+\n/,
    );
    expect(suspended.stdout).toContain(`  ${renewed.vcId}\n`);
    expect((await issuer.call(`/v1/vcs/${encodeURIComponent(renewed.vcId)}`)).json.state).toBe('suspended');
    const asJson = json(await operator('vcs', 'reinstate', renewed.vcId, '--json'));
    expect(asJson).toMatchObject({ vcId: renewed.vcId, state: 'active', changed: [renewed.vcId, issued.vcId] });
    const again = await operator('vcs', 'reinstate', renewed.vcId);
    exits(again, EXIT.DENIED, '[CREDENTIAL_NOT_SUSPENDED, HTTP 409]');
    // Revoking the old copy revokes its renewal, the live one: the output says so.
    const revoked = await operator('vcs', 'revoke', issued.vcId);
    expect(revoked.stdout).toMatch(/^Revoked\.\nAlso revoked \(\d+: /);
    expect(revoked.stdout).toContain(`  ${renewed.vcId}\n`);
    noSecret(suspended, revoked);
  });

  it("issues, rotates and revokes a server-custody agent's client secret (shown once)", async () => {
    const agent = await onboardServerAgent(issuer, await mintToken(issuer));
    const issued = await operator('agents', 'secret', agent.agentDid);
    expect(issued.code).toBe(EXIT.OK);
    expect(issued.stdout).toContain('Shown once');
    const secret = /client secret\s+(mandate_cs_\S+)/.exec(issued.stdout)?.[1] as string;
    expect(secret).toMatch(/^mandate_cs_[A-Za-z0-9_-]{43}$/);
    const rotated = json(await operator('agents', 'secret', agent.agentDid, '--json'));
    expect(rotated.clientId).toBe(agent.agentDid);
    expect(rotated.clientSecret).not.toBe(secret);
    const revoked = await operator('agents', 'revoke-secret', agent.agentDid);
    expect(revoked.code).toBe(EXIT.OK);
    expect(revoked.stdout).toContain('revoked');
    exits(await operator('agents', 'revoke-secret', agent.agentDid), EXIT.DENIED, 'CLIENT_SECRET_NOT_FOUND');
  });

  it('creates and shows status lists with their fill level', async () => {
    const [created, agent] = await Promise.all([
      operator('status-list', 'create', '--purpose', 'revocation', '--id', 'cli-list', '--no-default', '--json'),
      mintToken(issuer).then((token) => onboardServerAgent(issuer, token)),
    ]);
    expect(json(created)).toMatchObject({
      listId: 'cli-list',
      purpose: 'revocation',
      url: `${issuer.url}/v1/status-list/cli-list`,
    });
    const entry = (await issuer.call(`/v1/vcs/${encodeURIComponent(agent.vcId)}`)).json.statusLists.find(
      (s: { purpose: string }) => s.purpose === 'revocation',
    );
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
    expect(
      (await issuer.call(`/v1/vcs/${encodeURIComponent(agent.vcId)}/revoke`, { admin: true, body: {} })).status,
    ).toBe(200);
    const after = await mandate(['status-list', 'show', entry.listId, '--json'], { MANDATE_URL: issuer.url });
    expect(json(after)).toMatchObject({ listId: entry.listId, purpose: 'revocation', set: json(before).set + 1 });
  });

  it('takes the word after an option as its value even when it starts with a dash (a base64url token may)', async () => {
    const named = await operator('dids', 'create', '--name', '-dash-first', '--json');
    expect(json(named).did).toMatch(/:dids:-dash-first$/);
    const short = await mandate(['fetch', 'https://a.example/', '-H', '-x: y', '--key-file', '/nonexistent']);
    expect(short.stderr).not.toContain('ambiguous');
    const missing = await operator('dids', 'create', '--name');
    exits(missing, EXIT.USAGE, "Option '--name <value>' argument missing");
  });

  it('creates, resolves, edits and deactivates a hosted DID', async () => {
    const created = await operator('dids', 'create', '--name', 'cli-test', '--json');
    const did = json(created).did as string;
    expect(json(created)).toMatchObject({ kind: 'managed', serverHeldKey: true, deactivated: false });
    const added = await operator(
      'dids',
      'add-service',
      did,
      '--type',
      'LinkedDomains',
      '--endpoint',
      'https://files.example.com/',
      '--id',
      'site',
    );
    expect(added.code).toBe(EXIT.OK);
    expect(added.stdout).toMatch(
      new RegExp(`${did.replace(/[.]/g, '\\.')}#site\\s+LinkedDomains\\s+https://files.example.com/`),
    );
    const [resolved, duplicate] = await Promise.all([
      mandate(['dids', 'resolve', did], { MANDATE_URL: issuer.url }),
      operator(
        'dids',
        'add-service',
        did,
        '--type',
        'LinkedDomains',
        '--endpoint',
        'https://other.example.com/',
        '--id',
        'site',
      ),
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
    const vp = (
      await issuer.call(`/v1/agents/${encodeURIComponent(agent.agentDid)}/vp`, {
        admin: true,
        body: { targetService: 'files.example.com', challenge: 'cli-nonce-1' },
      })
    ).json;
    const good = join(dir, 'vp.json');
    writeFileSync(good, JSON.stringify(vp));
    const tampered = structuredClone(vp);
    tampered.verifiableCredential[0].credentialSubject.privilegeScopes.push('files:admin');
    const bad = join(dir, 'tampered.json');
    writeFileSync(bad, JSON.stringify(tampered));
    writeFileSync(join(dir, 'not-json.json'), '{"@context": [');
    const common = [
      '--trusted-issuer',
      issuerDid,
      '--target',
      'files.example.com',
      '--challenge',
      'cli-nonce-1',
      '--allow-http-loopback',
    ];
    const noChallenge = common.filter((_, i) => i !== 4 && i !== 5);
    const [valid, denied, deniedJson, wrongTarget, noFile, notJson, noLoopback, unchecked] = await Promise.all([
      mandate(['verify', good, ...common]),
      mandate(['verify', bad, ...common]),
      mandate(['verify', '-', ...common, '--json'], {}, JSON.stringify(tampered)),
      mandate(['verify', good, ...common.slice(0, 2), '--target', 'mail.example.com', '--allow-http-loopback']),
      mandate(['verify', join(dir, 'absent.json'), ...common]),
      mandate(['verify', join(dir, 'not-json.json'), '--target', 'files.example.com', '--allow-self-signed']),
      mandate(['verify', good, ...common.slice(0, -1)]), // the issuer's did:web is on 127.0.0.1
      mandate(['verify', good, ...noChallenge]),
    ]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(EXIT.OK);
    expect(valid.stderr).toBe('');
    // Without --challenge the verdict stands, but replay went unchecked: said on stderr.
    expect(noChallenge).not.toContain('--challenge');
    expect(unchecked.code).toBe(EXIT.OK);
    expect(unchecked.stdout).toContain(`VALID  agent ${agent.agentDid}`);
    expect(unchecked.stderr).toBe(
      'mandate: warning: no --challenge: the presentation is not checked against a nonce you issued, so a replayed one passes\n',
    );
    expect(valid.stdout).toContain('✓ presentation');
    expect(valid.stdout).toContain('✓ status');
    expect(valid.stdout).toContain(`VALID  agent ${agent.agentDid}`);
    expect(valid.stdout).toContain('effective scopes: files:read, files:write');
    expect(denied.code).toBe(EXIT.DENIED);
    // The presentation's proof covers the credentials it carries: the edit breaks it first.
    expect(denied.stdout).toMatch(/✗ presentation {2}VP_SIGNATURE_INVALID/);
    expect(denied.stdout).toMatch(/DENIED {2}VP_SIGNATURE_INVALID: .* \(check: presentation\)/);
    expect(deniedJson.code).toBe(EXIT.DENIED);
    expect(json(deniedJson)).toMatchObject({
      valid: false,
      reason: 'VP_SIGNATURE_INVALID',
      failedCheck: 'presentation',
    });
    expect(wrongTarget.code).toBe(EXIT.DENIED);
    expect(wrongTarget.stdout).toContain('DENIED  TARGET_MISMATCH');
    exits(noFile, EXIT.USAGE, '[FILE_UNREADABLE]');
    exits(notJson, EXIT.USAGE, 'is not JSON', '[FILE_INVALID]');
    // Without the flag, the refusal says which flag, in this CLI's terms.
    expect(noLoopback.code).toBe(EXIT.DENIED);
    expect(noLoopback.stdout).toContain(
      'hint: a DID or status list on this machine (127.0.0.1, localhost) needs --allow-http-loopback',
    );
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
    await issuer.running.ctx.audit.record({
      event: 'CLI_TAIL_OUTSIDER',
      actor: 'system',
      reason: 'ok\u001b[2J\u001b[1A',
    });
    const tailed = await operator('audit', 'tail', '--lines', '1');
    // eslint-disable-next-line no-control-regex -- the assertion is exactly that no control character reaches the terminal
    expect(tailed.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(tailed.stdout).toContain('ok\\u001b[2J\\u001b[1A');

    await outsideQuery(issuer, "UPDATE audit SET reason = 'edited' WHERE seq = 2");
    const broken = await operator('audit', 'verify');
    expect(broken.code).toBe(EXIT.DENIED);
    expect(broken.stdout).toMatch(/^audit chain BROKEN at record 2 \(of \d+\)\n$/);
  });

  it('audit tail asks for the newest records first: one request for a short tail of a long log, filters kept', async () => {
    const { ctx } = issuer.running;
    const event = 'CLI_TAIL_PROBE';
    await ctx.stores.transaction(async (tx) => {
      for (let i = 0; i < 1234; i++) await ctx.audit.record({ event, actor: 'system', reason: `probe-${i}` }, tx);
    });
    await ctx.audit.record({ event: 'CLI_TAIL_OTHER', actor: 'system' });
    // A proxy in front of the issuer counts what the CLI asks for.
    const proxy = await fakeServer(async (req, res) => {
      const upstream = await fetch(issuer.url + (req.url ?? ''), {
        headers: { authorization: req.headers.authorization ?? '' },
      });
      res
        .writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
        .end(Buffer.from(await upstream.arrayBuffer()));
    });
    const viaProxy = (...args: string[]): Promise<CliResult> =>
      mandate(['audit', 'tail', '--url', proxy.url, ...args], { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY });
    try {
      const short = await viaProxy('--event', event, '--from', '2000-01-01', '--lines', '5', '--json');
      expect(proxy.requests).toHaveLength(1);
      expect(proxy.requests[0]).toMatch(
        /^\/v1\/audit\?event=CLI_TAIL_PROBE&from=2000-01-01T00%3A00%3A00.000Z&order=desc&limit=5$/,
      );
      expect(json(short).records.map((r: { reason: string }) => r.reason)).toEqual([
        'probe-1229',
        'probe-1230',
        'probe-1231',
        'probe-1232',
        'probe-1233',
      ]);

      // 1100 lines: pages of 500, 500 and 100, each older than the last; shown oldest first.
      proxy.requests.length = 0;
      const long = await viaProxy('--event', event, '--lines', '1100', '--json');
      expect(proxy.requests).toHaveLength(3);
      const records = json(long).records as { seq: number; reason: string }[];
      expect(records.map((r) => r.reason)).toEqual(Array.from({ length: 1100 }, (_, i) => `probe-${134 + i}`));
      expect(records.every((r, i) => i === 0 || r.seq === records[i - 1]!.seq + 1)).toBe(true);
    } finally {
      proxy.close();
    }
  });

  it('names the field a validation error is about', async () => {
    const [badScope, badDid] = await Promise.all([
      operator('tokens', 'mint', '--scope', 'BAD SCOPE', '--domain', 'x.example'),
      operator('agents', 'show', 'not-a-did'),
    ]);
    exits(
      badScope,
      EXIT.DENIED,
      'mandate: invalid request body (json.requestedScopes.0: ',
      ') [VALIDATION_FAILED, HTTP 400]',
    );
    exits(badDid, EXIT.DENIED, 'mandate: invalid param (param.did: ');
    for (const r of [badScope, badDid]) expect(r.stderr.split('\n')).toHaveLength(2);
  });
});

// The binary itself: node bin/mandate.mjs, once per thing a run() in this process cannot show.
// The spawns run at once (each loads tsx and the CLI); up to 30 s each, the child's timeout, so
// on a loaded machine they may outlast the default 30 s test timeout though nothing is wrong.
describe('mandate CLI: the binary', () => {
  it(
    'runs through bin/mandate.mjs: exit codes through process.exit, output flushed, stdin piped',
    { timeout: 120_000 },
    async () => {
      const agent = await onboardServerAgent(issuer, await mintToken(issuer));
      const vp = (
        await issuer.call(`/v1/agents/${encodeURIComponent(agent.agentDid)}/vp`, {
          admin: true,
          body: { targetService: 'files.example.com', challenge: 'cli-nonce-2' },
        })
      ).json;
      const tampered = structuredClone(vp);
      tampered.verifiableCredential[0].credentialSubject.privilegeScopes.push('files:admin');
      const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
      const [version, noArgs, listed, unreachable, piped] = await Promise.all([
        // 1. The loader: in a checkout bin/mandate.mjs registers tsx and imports cli/main.ts, and
        //    the version comes from the package's manifest through its self-reference.
        binary(['--version']),
        // 2. A failure's exit code through process.exit, with the whole usage text on stderr
        //    (several lines) flushed before the process ends.
        binary([]),
        // 3. Success after requests to a real issuer: exit 0 with the table on stdout, though the
        //    keep-alive socket to the issuer is still open and idle (process.exit does not wait for
        //    it); the admin key, from the environment, is not printed.
        binary(['agents', 'list'], { MANDATE_URL: issuer.url, MANDATE_ADMIN_KEY: TEST_ADMIN_KEY }),
        // 4. An unreachable issuer: exit 4, the error as one JSON line on stderr, nothing on stdout,
        //    URL and key from the fallback variables.
        binary(['tokens', 'list', '--json', '--timeout', '5'], {
          API_BASE_URL: 'http://127.0.0.1:1',
          SERVICE_ADMIN_API_KEY: TEST_ADMIN_KEY,
        }),
        // 5. stdin: "-" reads the pipe to its end (processIo's stdin); a denial exits 3 with the
        //    verdict as the one JSON document on stdout.
        binary(
          [
            'verify',
            '-',
            '--trusted-issuer',
            issuerDid,
            '--target',
            'files.example.com',
            '--challenge',
            'cli-nonce-2',
            '--allow-http-loopback',
            '--json',
          ],
          {},
          JSON.stringify(tampered),
        ),
      ]);
      expect(version.code, version.stderr).toBe(EXIT.OK);
      expect(version.stdout).toBe(`${manifest.version}\n`);
      expect(version.stderr).toBe('');
      expect(noArgs.code).toBe(EXIT.USAGE);
      expect(noArgs.stdout).toBe('');
      expect(noArgs.stderr).toMatch(/^mandate: operate a Mandate issuer/);
      expect(noArgs.stderr).toContain('Usage: mandate <command>');
      expect(noArgs.stderr).toMatch(/Run "mandate <command> --help" for a command's arguments and options\.\n$/);
      expect(listed.code, listed.stderr).toBe(EXIT.OK);
      expect(listed.stderr).toBe('');
      expect(listed.stdout).toMatch(/^DID\s+CUSTODY\s+SCOPES\s+DEPTH\s+DOMAINS\s+CREDENTIAL\s+CREATED$/m);
      expect(listed.stdout).toContain(`${agent.agentDid}  server`);
      expect(unreachable.code).toBe(EXIT.UNREACHABLE);
      expect(unreachable.stdout).toBe('');
      expect(JSON.parse(unreachable.stderr)).toEqual({
        error: {
          code: 'NETWORK_ERROR',
          message: 'the issuer could not be reached; tried http://127.0.0.1:1 (set by API_BASE_URL)',
          exitCode: 4,
        },
      });
      expect(unreachable.stderr.split('\n')).toHaveLength(2);
      expect(piped.code, piped.stderr).toBe(EXIT.DENIED);
      expect(json(piped)).toMatchObject({ valid: false, reason: 'VP_SIGNATURE_INVALID', failedCheck: 'presentation' });
      noSecret(version, noArgs, listed, unreachable, piped);
    },
  );
});
