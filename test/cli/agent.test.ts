// The CLI as an agent (issue 42 §3, docs/cli.md §Agent commands): `mandate agents onboard`,
// `present`, `delegate` and `mandate fetch`, against a real issuer on its defaults (DPoP only)
// and a real MCP server behind mcpAuth. Command lines run in this process through run(), as
// test/cli/operator.test.ts runs them; one spawns the real binary for `mandate fetch`.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../cli/main.ts';
import { createFileKeyStore } from '../../wallet/keystore/file.ts';
import { startGuardedMcp, type GuardedMcp } from '../support/agent.ts';
import { mintToken, startTestIssuer, tempDir, TEST_ADMIN_KEY, type TestIssuer } from '../support/issuer.ts';
import { TOOLS } from '../support/mcp.ts';

const BIN = fileURLToPath(new URL('../../bin/mandate.mjs', import.meta.url));
const PASSPHRASE = 'correct horse battery staple';
/** scrypt at a test's cost; the first onboarding below creates a key at the default one. */
const FAST = { N: 1024, r: 8, p: 1 };
const JSON_RPC = ['-H', 'Content-Type: application/json', '-H', 'Accept: application/json, text/event-stream'];

let issuer: TestIssuer;
let mcp: GuardedMcp;
let dir: string;
let issuerDid: string;
/** A server of the test's own: a 500, and a 401 whose metadata is missing. */
let odd: Server;
let oddUrl: string;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function mandate(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, env, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    // eslint-disable-next-line require-yield -- no command here reads stdin
    async *stdin() {
      return;
    },
  });
  return { code, stdout, stderr };
}

/** The agent's shell: the issuer's URL and the key's passphrase in the environment. */
function agentCli(...args: string[]): Promise<CliResult> {
  return mandate(args, { MANDATE_URL: issuer.url, MANDATE_PASSPHRASE: PASSPHRASE });
}

const toolCall = (name: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

/** `mandate fetch` of a tools/call as the agent of `keyFile`. */
function callTool(keyFile: string, name: string, ...more: string[]): Promise<CliResult> {
  return agentCli(
    'fetch',
    mcp.resource,
    '-d',
    toolCall(name),
    ...JSON_RPC,
    '--key-file',
    keyFile,
    '--issuer',
    issuer.url,
    '--allow-http-loopback',
    ...more,
  );
}

/**
 * An agent onboarded by the CLI with a key made here at a low scrypt cost (the record keeps its
 * cost, so each command opens it quickly): onboarding enrolls a key file that already exists.
 */
async function onboardSelf(name: string, scopes = ['calendar:read', 'mail:send']): Promise<string> {
  const token = await mintToken(issuer, { requestedScopes: scopes, requestedDomains: [mcp.resource] });
  const keyFile = join(dir, `${name}.json`);
  await createFileKeyStore({ directory: dir, passphrase: PASSPHRASE, kdfCost: FAST }).generate(name);
  const done = await agentCli('agents', 'onboard', '--token', token, '--custody', 'self', '--key-file', keyFile);
  expect(done).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/\(existing key\)/) });
  return keyFile;
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  issuerDid = (await issuer.call('/v1/health')).json.issuer;
  mcp = await startGuardedMcp((resource) => ({
    resource,
    authorizationServer: issuer.url,
    tools: { ...TOOLS, unlisted_tool: ['files:delete'] },
    challengeScopes: ['calendar:read'],
  }));
  dir = tempDir('mandate-agent-cli-');
  odd = createServer((request, response) => {
    if (request.url === '/boom') return void response.writeHead(500).end('broken');
    if (request.url === '/hang') return; // never answers
    response.writeHead(401, { 'www-authenticate': `DPoP resource_metadata="${oddUrl}/missing"` }).end();
  });
  await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
  oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  odd?.closeAllConnections();
  await new Promise((resolve) => odd?.close(resolve));
  await mcp?.close();
  await issuer?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mandate agents onboard', { timeout: 60_000 }, () => {
  it('self custody: a new encrypted key, the credential written beside it', async () => {
    const token = await mintToken(issuer, { requestedScopes: ['calendar:read'], requestedDomains: [mcp.resource] });
    const keyFile = join(dir, 'first.json');
    const done = await agentCli(
      'agents',
      'onboard',
      '--token',
      token,
      '--custody',
      'self',
      '--key-file',
      keyFile,
      '--json',
    );
    expect(done).toMatchObject({ code: 0, stderr: '' });
    const result = JSON.parse(done.stdout);
    expect(result).toMatchObject({
      custody: 'self',
      keyFile,
      keyCreated: true,
      credentialsFile: join(dir, 'first.credentials'),
    });
    expect(result.agentDid).toMatch(/^did:key:z6Mk/);
    const record = JSON.parse(readFileSync(keyFile, 'utf8'));
    expect(JSON.stringify(record)).not.toMatch(/"seed"/);
    expect(record).toHaveProperty('encryptedSecretKey');
    const chain = JSON.parse(readFileSync(result.credentialsFile, 'utf8'));
    expect(chain).toHaveLength(1);
    expect(chain[0].credentialSubject).toMatchObject({ id: result.agentDid, privilegeScopes: ['calendar:read'] });
  });

  it('server custody: the credential written where --credentials says', async () => {
    const token = await mintToken(issuer);
    const credentials = join(dir, 'server.credentials');
    const done = await agentCli(
      'agents',
      'onboard',
      '--token',
      token,
      '--custody',
      'server',
      '--credentials',
      credentials,
    );
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/custody\s+server/);
    expect(JSON.parse(readFileSync(credentials, 'utf8'))[0].credentialSubject.id).toMatch(/^did:web:/);
  });

  it('refuses without a passphrase, over an existing credentials file, without --custody; the issuer refuses an unknown token', async () => {
    const token = await mintToken(issuer);
    const keyFile = join(dir, 'refused.json');
    const bare = await mandate(['agents', 'onboard', '--token', token, '--custody', 'self', '--key-file', keyFile], {
      MANDATE_URL: issuer.url,
    });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/set MANDATE_PASSPHRASE to its passphrase .*\[USAGE\]/);
    expect(existsSync(keyFile)).toBe(false);
    writeFileSync(join(dir, 'refused.credentials'), '[]');
    const taken = await agentCli('agents', 'onboard', '--token', token, '--custody', 'self', '--key-file', keyFile);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/refused\.credentials already exists.*\[ARGUMENT_INVALID\]/);
    expect((await agentCli('agents', 'onboard', '--token', token)).stderr).toMatch(/--custody is required/);
    // Its directory cannot be made (a file is in the way): refused before the token is spent.
    writeFileSync(join(dir, 'blocker'), '');
    const blocked = join(dir, 'blocker', 'agent.credentials');
    const unwritable = await agentCli(
      'agents',
      'onboard',
      '--token',
      token,
      '--custody',
      'server',
      '--credentials',
      blocked,
    );
    expect(unwritable).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/cannot create the directory .*\[FILE_UNREADABLE\]/),
    });
    expect(
      (
        await agentCli(
          'agents',
          'onboard',
          '--token',
          token,
          '--custody',
          'server',
          '--credentials',
          join(dir, 'late.credentials'),
        )
      ).code,
    ).toBe(0);
    const other = join(dir, 'unknown-token.json');
    const used = await agentCli(
      'agents',
      'onboard',
      '--token',
      'mt_not-a-token',
      '--custody',
      'self',
      '--key-file',
      other,
    );
    expect(used.code).toBe(3);
    expect(used.stderr).toMatch(/HTTP 4\d\d/);
  });
});

describe('mandate fetch', { timeout: 60_000 }, () => {
  let keyFile: string;
  beforeAll(async () => {
    keyFile = await onboardSelf('fetcher');
  }, 60_000);

  it('answers the 401 with a DPoP-bound token and prints the body; -v names each step, no secret', async () => {
    const done = await callTool(keyFile, 'read_calendar', '-v');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout).result.content[0].text).toMatch(/"via":"token"/);
    expect(done.stderr).toMatch(
      /> POST http:\/\/127\.0\.0\.1:\d+\/mcp\n< 401 {2}www-authenticate: Bearer resource_metadata="[^"]+", scope="calendar:read", DPoP /,
    );
    expect(done.stderr).toMatch(
      /\(token request client_credentials, DPoP proof, private_key_jwt, scope "calendar:read"\)\n< 200/,
    );
    expect(done.stderr).toMatch(/\/mcp {2}\(DPoP-bound token, DPoP proof\)\n< 200\n$/);
    // No token, proof or assertion (all JWS: "eyJ…") on either stream.
    expect(done.stderr).not.toMatch(/eyJ/);
  });

  it('--json: status, headers and body as one document', async () => {
    const done = await callTool(keyFile, 'read_calendar', '--json');
    expect(done.code).toBe(0);
    const answer = JSON.parse(done.stdout);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/json/);
    expect(JSON.parse(answer.body).result).toBeDefined();
  });

  it('a scope the agent does not hold: AGENT_SCOPE_NOT_HELD, exit 3, no token asked for', async () => {
    const done = await callTool(keyFile, 'unlisted_tool');
    expect(done.code).toBe(3);
    expect(done.stderr).toMatch(/files:delete \[AGENT_SCOPE_NOT_HELD, HTTP 403, INSUFFICIENT_SCOPE\]\n$/);
  });

  it('a revoked credential: the token endpoint refuses with its reason, exit 3', async () => {
    const revokedKey = await onboardSelf('revoked');
    const vcId = JSON.parse(readFileSync(revokedKey.replace(/\.json$/, '.credentials'), 'utf8'))[0].id;
    const revoked = await mandate(['vcs', 'revoke', vcId], {
      MANDATE_URL: issuer.url,
      MANDATE_ADMIN_KEY: TEST_ADMIN_KEY,
    });
    expect(revoked.code).toBe(0);
    const done = await callTool(revokedKey, 'read_calendar', '--json');
    expect(done.code).toBe(3);
    expect(JSON.parse(done.stderr).error).toMatchObject({
      status: 400,
      code: 'AGENT_TOKEN_REFUSED',
      reason: 'CREDENTIAL_REVOKED',
      exitCode: 3,
    });
  });

  it('exit 3 on a 4xx, 5 on a 5xx and on unusable metadata, 4 when nothing answers', async () => {
    const notFound = await agentCli(
      'fetch',
      `${mcp.resource}/nothing`,
      '--key-file',
      keyFile,
      '--issuer',
      issuer.url,
      '--allow-http-loopback',
    );
    expect(notFound).toMatchObject({ code: 3, stderr: expect.stringMatching(/answered HTTP 404\n$/) });
    // Outside the resource its metadata names (RFC 9728 §3.3): no token for it.
    const outside = await agentCli('fetch', `${mcp.url}/elsewhere`, '--key-file', keyFile, '--allow-http-loopback');
    expect(outside).toMatchObject({ code: 5, stderr: expect.stringMatching(/\[AGENT_RESOURCE_MISMATCH\]\n$/) });
    const boom = await agentCli('fetch', `${oddUrl}/boom`, '--key-file', keyFile);
    expect(boom).toMatchObject({ code: 5, stdout: 'broken' });
    const metadata = await agentCli('fetch', `${oddUrl}/guarded`, '--key-file', keyFile, '--allow-http-loopback');
    expect(metadata.code).toBe(5);
    expect(metadata.stderr).toMatch(/\[AGENT_METADATA_INVALID/);
    const slow = await agentCli('fetch', `${oddUrl}/hang`, '--key-file', keyFile, '--timeout', '1');
    expect(slow).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(/within --timeout \[SERVICE_UNREACHABLE\]\n$/),
    });
    const closed = await agentCli('fetch', 'http://127.0.0.1:9/', '--key-file', keyFile);
    expect(closed.code).toBe(4);
    expect(closed.stderr).toMatch(/http:\/\/127\.0\.0\.1:9 could not be reached.*\[SERVICE_UNREACHABLE\]/);
  });

  it('refuses bad input before any request: URL, header, body on GET, key file, passphrase, credentials', async () => {
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [['fetch', 'ftp://x/', '--key-file', keyFile], /must be https .*\[ARGUMENT_INVALID\]/],
      [
        ['fetch', 'http://example.com/', '--key-file', keyFile],
        /plain http only to 127\.0\.0\.1 or localhost\) \[ARGUMENT_INVALID\]/,
      ],
      [
        ['fetch', mcp.resource, '-H', 'no colon', '--key-file', keyFile],
        /-H must be "Name: value" \[ARGUMENT_INVALID\]/,
      ],
      [['fetch', mcp.resource, '-X', 'GET', '-d', 'x', '--key-file', keyFile], /-X GET takes no -d body \[USAGE\]/],
      [
        ['fetch', mcp.resource, '--key-file', join(dir, 'key.pem')],
        /must name a <id>\.json file of a key store directory \[ARGUMENT_INVALID\]/,
      ],
      [
        ['fetch', mcp.resource, '--key-file', join(dir, 'absent.json')],
        /no key at .*absent\.json.*\[FILE_UNREADABLE\]/,
      ],
      [['fetch', mcp.resource, '--key-file', keyFile], /\[WRONG_PASSPHRASE\]/, { MANDATE_PASSPHRASE: 'wrong' }],
      [
        ['fetch', mcp.resource, '--key-file', keyFile, '--credentials', join(dir, 'server.credentials')],
        /is not of the key .*\[FILE_INVALID\]/,
      ],
    ];
    for (const [args, message, env] of cases) {
      const done = await mandate(args, env ?? { MANDATE_PASSPHRASE: PASSPHRASE });
      expect({ args, code: done.code }).toEqual({ args, code: 2 });
      expect(done.stderr).toMatch(message);
    }
  });
});

describe('mandate agents present and delegate', { timeout: 60_000 }, () => {
  let keyFile: string;
  beforeAll(async () => {
    keyFile = await onboardSelf('delegator');
  }, 60_000);

  it('present: a presentation `mandate verify` accepts for that target and challenge', async () => {
    const done = await agentCli(
      'agents',
      'present',
      '--target',
      mcp.resource,
      '--challenge',
      'cli-nonce-7',
      '--key-file',
      keyFile,
    );
    expect(done.code).toBe(0);
    const vpFile = join(dir, 'vp.json');
    writeFileSync(vpFile, done.stdout);
    const verdict = await mandate([
      'verify',
      vpFile,
      '--trusted-issuer',
      issuerDid,
      '--target',
      mcp.resource,
      '--challenge',
      'cli-nonce-7',
      '--allow-http-loopback',
    ]);
    expect(verdict).toMatchObject({ code: 0, stdout: expect.stringMatching(/VALID/) });
    expect(verdict.stdout).toMatch(/^VALID {2}agent did:key:/m);
  });

  it('delegate: the sub-agent holding the printed chain calls the service through a token exchange', async () => {
    const subStore = createFileKeyStore({ directory: dir, passphrase: PASSPHRASE, kdfCost: FAST });
    const sub = await subStore.generate('sub');
    const subDid = `did:key:${sub.publicKeyMultibase}`;
    const done = await agentCli(
      'agents',
      'delegate',
      '--to',
      subDid,
      '--scopes',
      'calendar:read',
      '--depth',
      '0',
      '--domains',
      mcp.resource,
      '--key-file',
      keyFile,
    );
    expect(done.code).toBe(0);
    const chain = JSON.parse(done.stdout);
    expect(chain).toHaveLength(2);
    expect(chain[0]).toMatchObject({
      type: ['VerifiableCredential', 'DelegatedAgentCredential'],
      credentialSubject: { id: subDid, delegationDepth: 0 },
    });
    writeFileSync(join(dir, 'sub.credentials'), done.stdout);
    const called = await callTool(join(dir, 'sub.json'), 'read_calendar', '-v');
    expect(called.code).toBe(0);
    expect(called.stderr).toMatch(/token request token-exchange/);
  });

  it('delegate refuses a scope it does not hold (exit 3) and a --to that is no DID (exit 2)', async () => {
    const escalated = await agentCli(
      'agents',
      'delegate',
      '--to',
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      '--scopes',
      'files:delete',
      '--key-file',
      keyFile,
    );
    expect(escalated.code).toBe(3);
    expect(escalated.stderr).toMatch(/\[SCOPE_ESCALATION\]/);
    const notDid = await agentCli(
      'agents',
      'delegate',
      '--to',
      'bob',
      '--scopes',
      'calendar:read',
      '--key-file',
      keyFile,
    );
    expect(notDid.code).toBe(2);
    expect(notDid.stderr).toMatch(/--to must be a DID/);
  });
});

it('help: the agent commands say they act as the agent of the key file', async () => {
  for (const command of [['fetch'], ['agents', 'present'], ['agents', 'delegate']]) {
    const help = await mandate([...command, '--help']);
    expect(help).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/Acts as the agent of --key-file and --credentials/),
    });
  }
  expect((await mandate(['fetch', '--help'])).stdout).toMatch(/-X, --request <method> +the method/);
});

describe('the binary', { timeout: 60_000 }, () => {
  it('node bin/mandate.mjs fetch: the body on stdout, exit 0 through process.exit', async () => {
    const keyFile = await onboardSelf('spawned');
    const result = await new Promise<CliResult>((resolve) => {
      execFile(
        process.execPath,
        [
          BIN,
          'fetch',
          mcp.resource,
          '-d',
          toolCall('read_calendar'),
          ...JSON_RPC,
          '--key-file',
          keyFile,
          '--issuer',
          issuer.url,
          '--allow-http-loopback',
        ],
        { env: { PATH: process.env.PATH ?? '', MANDATE_PASSPHRASE: PASSPHRASE }, timeout: 30_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr }),
      );
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout).result.content[0].text).toMatch(/read_calendar|authInfo/);
  }, 60_000);
});
