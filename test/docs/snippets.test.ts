// Every code block a reader of README.md or docs/ would run, run: read from the markdown (so the
// page and the test cannot drift), with the free variables the prose says the reader has passed
// in, against a real issuer where it needs one. The inventory holds every ts/js/sh block to
// that: each one is marked `<!-- run: name -->` (run here), `<!-- example: name -->` (run by
// test/docs/library.types.ts or test/verifier/mcp/docs.types.ts) or `<!-- not run: why -->`, so a new or changed
// snippet that nobody runs fails here instead of failing a reader.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { discoverAuthorizationServerMetadata, fetchToken } from '@modelcontextprotocol/sdk/client/auth.js';
import Database from 'better-sqlite3';
import { allowInsecureRequests } from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../issuer/config/index.ts';
import { openDatabase } from '../../issuer/storage/db.ts';
import { base64urlToBytes, bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { verifyResponseSignature } from '../../wallet/http-signatures/index.ts';
import {
  createMemoryCredentialStore,
  createMemoryKeyStore,
  didKeyIdentity,
  generateSeed,
  getPublicKey,
  issueAgentCredential,
  IssuerClient,
  seedSigner,
  verifySessionToken,
  Wallet,
} from '../../wallet/index.ts';
import { codeBlocks, documentationFiles, REPO, runSnippet, snippet } from '../support/doc-snippets.ts';
import {
  agentPath,
  mintToken,
  onboardSelfAgent,
  onboardServerAgent,
  startTestIssuer,
  tempDir,
  TEST_ADMIN_KEY,
  type TestIssuer,
} from '../support/issuer.ts';
import { oauthAgent, RESOURCE } from '../support/oauth.ts';

const sh = promisify(execFile);

/** An implementation in a W3C suite's localConfig.cjs. */
interface SuiteEndpoint {
  endpoint: string;
  headers?: Record<string, string>;
  options?: { cryptosuite?: string };
}
interface SuiteImplementation {
  issuers: SuiteEndpoint[];
  verifiers: SuiteEndpoint[];
  vpVerifiers: SuiteEndpoint[];
}

/** Blocks in a language a reader runs. */
const RUNNABLE_LANGS = new Set(['ts', 'tsx', 'js', 'javascript', 'typescript', 'sh', 'bash', 'shell']);

/**
 * The `<!-- run: … -->` names this file runs, by page; verifier-redis-replay runs in
 * snippets-redis.test.ts, which needs the run's Redis.
 */
const RUN_HERE: Record<string, readonly string[]> = {
  'README.md': ['readme-library', 'readme-signed-requests'],
  'docs/cli.md': ['cli-help'],
  'docs/conformance.md': ['w3c-local-config'],
  'docs/dids.md': ['dids-resolver', 'dids-table-resolver'],
  'docs/http-signatures.md': ['http-signatures-sign-verify'],
  'docs/key-directory.md': ['key-directory-self-custody'],
  'docs/oauth.md': [
    'oauth4webapi-client-credentials',
    'oauth4webapi-token-exchange',
    'jose-access-token',
    'mcp-sdk-client-secret',
    'mcp-sdk-private-key-jwt',
  ],
  'docs/operations.md': ['dev-admin-key', 'prune-user-challenges', 'sqlite-backup'],
  'docs/verifier.md': [
    'verifier-import',
    'verifier-sign-presentation',
    'verifier-send-presentation',
    'verifier-hono',
    'verifier-express',
    'verifier-node-http',
    'verifier-redis-replay',
  ],
  'docs/wallet.md': ['wallet-self-custody', 'wallet-server-custody', 'wallet-delegation', 'wallet-session-token'],
};

/** `<!-- example: … -->` blocks and the test that runs each. */
const EXAMPLES_ELSEWHERE: Record<string, string> = {
  library: 'test/docs/library.types.ts',
  'readme-mcp': 'test/verifier/mcp/docs.types.ts',
  'mcp-hono': 'test/verifier/mcp/docs.types.ts',
  'agents-node': 'test/wallet/agent/agent-fetch.test.ts',
};

const allBlocks = documentationFiles().flatMap(codeBlocks);

/** Runs a shell block with bash (-e: the first failing command fails the block) in `cwd`. */
function runShell(code: string, cwd: string): Promise<{ stdout: string; stderr: string }> {
  return sh('bash', ['-e', '-o', 'pipefail', '-c', code], { cwd, timeout: 60_000, env: process.env });
}

describe('the inventory of code blocks in README.md and docs/', () => {
  it('marks every ts/js/sh block: run here, run by another test, or not run and why', () => {
    const unmarked = allBlocks
      .filter((b) => RUNNABLE_LANGS.has(b.lang) && b.marker === undefined)
      .map((b) => `${b.file}:${b.line} (\`\`\`${b.lang}: ${b.code.split('\n')[0]})`);
    expect(unmarked, 'mark each with <!-- run: name --> and run it here, or <!-- not run: why -->').toEqual([]);
    const vague = allBlocks.filter((b) => b.marker?.kind === 'not run' && b.marker.text.length < 10);
    expect(vague.map((b) => `${b.file}:${b.line}`)).toEqual([]);
  });

  it('runs every block marked run, and marks nothing run that no test runs', () => {
    const marked = allBlocks
      .filter((b) => b.marker?.kind === 'run')
      .map((b) => `${b.file} ${b.marker?.text}`)
      .sort();
    const run = Object.entries(RUN_HERE)
      .flatMap(([file, names]) => names.map((name) => `${file} ${name}`))
      .sort();
    expect(marked).toEqual(run);
    for (const block of allBlocks.filter((b) => b.marker?.kind === 'example')) {
      // `<!-- example: name (what runs it) -->`: the name is the first word.
      const name = block.marker?.text.split(' ')[0] ?? '';
      const test = EXAMPLES_ELSEWHERE[name];
      expect(test, `${block.file}:${block.line}: which test runs <!-- example: ${name} -->?`).toBeDefined();
      expect(readFileSync(join(REPO, test as string), 'utf8')).toContain(`example: ${name}`);
    }
  });

  it('names only npm scripts that exist, in every shell block (run or not)', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
    );
    const named = allBlocks
      .filter((b) => ['sh', 'bash', 'shell'].includes(b.lang))
      .flatMap((b) =>
        [...b.code.matchAll(/\bnpm (?:run (\S+)|(start|test)\b)/g)].map((m) => ({
          at: `${b.file}:${b.line}`,
          script: (m[1] ?? m[2]) as string,
        })),
      );
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !scripts.includes(n.script))).toEqual([]);
  });
});

describe('README.md', () => {
  it('"Using the library": the presentation is valid with the effective scopes the comment shows', async () => {
    const { result } = await runSnippet(snippet('README.md', 'readme-library'));
    expect(result).toMatchObject({ valid: true, effectiveScopes: ['files'] });
  });
});

describe('README.md signed requests and A2A cards', () => {
  it('"Signed requests and A2A agent cards": the signed request is allowed and the card verified, as the comments show', async () => {
    const { verdict, checked, agent } = (await runSnippet(snippet('README.md', 'readme-signed-requests'))) as {
      verdict: unknown;
      checked: unknown;
      agent: { did: string };
    };
    expect(verdict).toMatchObject({ allowed: true, claims: { agentDid: agent.did, effectiveScopes: ['files:read'] } });
    expect(checked).toMatchObject({ valid: true, agentDid: agent.did, effectiveScopes: ['files:read'] });
  });
});

describe('docs/http-signatures.md', () => {
  it('a request signed from a key store verifies, with its Web Bot Auth agent, once', async () => {
    const { signed, verified, signer } = (await runSnippet(
      snippet('docs/http-signatures.md', 'http-signatures-sign-verify'),
    )) as { signed: Request; verified: Record<string, unknown>; signer: { keyid: string } };
    expect(signed.headers.get('signature-agent')).toBe('sig1="https://issuer.example"');
    expect(verified).toMatchObject({
      keyid: signer.keyid,
      tag: 'web-bot-auth',
      signatureAgent: { url: 'https://issuer.example', type: 'directory', member: 'sig1' },
    });
    expect(verified.components).toContain('"content-digest"');
  });
});

describe('docs/dids.md', () => {
  it('the resolver set-up runs, and answers a resolution result (no network needed: an error result is one)', async () => {
    const { result, resolveKey } = await runSnippet(snippet('docs/dids.md', 'dids-resolver'));
    expect(result).toHaveProperty('didResolutionMetadata');
    expect(typeof resolveKey).toBe('function');
  }, 60_000);

  it('a method of your own: the table resolver answers its documents, and notFound for the rest', async () => {
    const { createTableResolver, resolver } = (await runSnippet(snippet('docs/dids.md', 'dids-table-resolver'))) as {
      createTableResolver: (table: Map<string, unknown>) => unknown;
      resolver: {
        resolve(
          did: string,
        ): Promise<{ didDocument: { id: string } | null; didResolutionMetadata: { error?: string } }>;
        register(name: string, method: unknown): void;
      };
    };
    const did = 'did:table:alice';
    resolver.register(
      'table',
      createTableResolver(new Map([[did, { '@context': 'https://www.w3.org/ns/did/v1', id: did }]])),
    );
    expect((await resolver.resolve(did)).didDocument?.id).toBe(did);
    expect((await resolver.resolve('did:example:bob')).didResolutionMetadata.error).toBe('notFound');
  });
});

describe('docs/cli.md and docs/operations.md shell blocks', { timeout: 120_000 }, () => {
  let dir: string;
  let adminApiKey: string;
  beforeAll(() => {
    // A development issuer's data directory: the generated secrets file and a database.
    dir = tempDir('mandate-docs-sh-');
    adminApiKey = loadConfig({ SERVICE_SQLITE_PATH: join(dir, 'data', 'issuer.db') }).adminApiKey;
    openDatabase(join(dir, 'data', 'issuer.db')).close();
  });

  it('npx mandate --help prints the usage', async () => {
    const { stdout } = await runShell(snippet('docs/cli.md', 'cli-help'), REPO);
    expect(stdout).toMatch(/^mandate: operate a Mandate issuer/);
  }, 60_000);

  it('reads the development admin key from data/issuer-secrets.json', async () => {
    const { stdout } = await runShell(snippet('docs/operations.md', 'dev-admin-key'), dir);
    expect(stdout.trim()).toBe(adminApiKey);
  });

  it('prunes old user challenges, and backs the database up, plain and compacted', async () => {
    await runShell(snippet('docs/operations.md', 'prune-user-challenges'), dir);
    await runShell(snippet('docs/operations.md', 'sqlite-backup'), dir);
    const copies = readdirSync(join(dir, 'backups'));
    expect(copies).toHaveLength(2);
    for (const copy of copies) {
      const db = new Database(join(dir, 'backups', copy), { readonly: true });
      try {
        expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'user_challenges'").get()).toBeDefined();
      } finally {
        db.close();
      }
    }
  });
});

// Several issuer round trips each: under a loaded full run they outlast the default budget.
describe('docs/oauth.md and docs/wallet.md against a running issuer', { timeout: 120_000 }, () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    // The MCP SDK's clients send no DPoP proof: the page says the operator must allow Bearer tokens.
    issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
  });
  afterAll(() => issuer?.dispose());

  it('oauth4webapi gets a DPoP-bound token from the development issuer (http), and jose verifies it', async () => {
    const agent = await oauthAgent(issuer);
    const { as, access_token } = await runSnippet(snippet('docs/oauth.md', 'oauth4webapi-client-credentials'), {
      issuerUrl: new URL(issuer.url),
      agentDid: agent.did,
      agentPrivateKey: agent.privateKey,
      verificationMethod: agent.identity.verificationMethod,
    });
    expect(typeof access_token).toBe('string');
    const { payload } = await runSnippet(snippet('docs/oauth.md', 'jose-access-token'), {
      metadata: as,
      token: access_token,
    });
    expect(payload).toMatchObject({ sub: agent.did, aud: RESOURCE, scope: 'files:read' });
    expect(payload).toHaveProperty('cnf.jkt');
  });

  it('oauth4webapi exchanges a presentation whose challenge names its DPoP key; the token is bound to that key', async () => {
    const agent = await oauthAgent(issuer);
    const { as } = await runSnippet(snippet('docs/oauth.md', 'oauth4webapi-client-credentials'), {
      issuerUrl: new URL(issuer.url),
      agentDid: agent.did,
      agentPrivateKey: agent.privateKey,
      verificationMethod: agent.identity.verificationMethod,
    });
    const exchanged = await runSnippet(snippet('docs/oauth.md', 'oauth4webapi-token-exchange'), {
      as,
      insecure: { [allowInsecureRequests]: true },
      holder: agent.identity,
      credentials: [agent.credential],
      resource: RESOURCE,
    });
    expect(exchanged.token_type).toBe('dpop');
    const { payload } = await runSnippet(snippet('docs/oauth.md', 'jose-access-token'), {
      metadata: as,
      token: exchanged.access_token,
    });
    expect(payload).toMatchObject({ sub: agent.did, cnf: { jkt: exchanged.jkt } });
  });

  it("the MCP SDK's providers, as the page builds them, get tokens: client secret and private_key_jwt", async () => {
    const metadata = await discoverAuthorizationServerMetadata(issuer.url);
    const server = await onboardServerAgent(issuer, await mintToken(issuer, { requestedDomains: [RESOURCE] }));
    const issued = await issuer.call(agentPath(server.agentDid, '/client-secret'), { method: 'POST', admin: true });
    const withSecret = await runSnippet(snippet('docs/oauth.md', 'mcp-sdk-client-secret'), {
      agentDid: server.agentDid,
      clientSecret: issued.json.clientSecret,
      issuerBaseUrl: issuer.url,
    });
    const seed = generateSeed();
    const self = await onboardSelfAgent(
      issuer,
      didKeyIdentity(seedSigner(seed)),
      await mintToken(issuer, { requestedDomains: [RESOURCE] }),
    );
    const withKey = await runSnippet(snippet('docs/oauth.md', 'mcp-sdk-private-key-jwt'), {
      agentDid: self.agentDid,
      x: bytesToBase64url(getPublicKey(seed)),
      d: bytesToBase64url(seed),
      issuerBaseUrl: issuer.url,
    });
    for (const { provider } of [withSecret, withKey]) {
      const tokens = await fetchToken(provider as Parameters<typeof fetchToken>[0], issuer.url, {
        metadata,
        resource: new URL(RESOURCE),
      });
      expect(tokens.token_type).toBe('Bearer');
    }
  });

  it('wallet: self custody onboards and presents; the agent delegates to another wallet', async () => {
    const dir = tempDir('mandate-docs-wallet-');
    // The page's issuer is https://issuer.example.com; this one listens on 127.0.0.1.
    const code = snippet('docs/wallet.md', 'wallet-self-custody').replace(
      "'https://issuer.example.com'",
      `'${issuer.url}'`,
    );
    const { wallet, vp } = (await runSnippet(code, {
      dir,
      enrollmentToken: await mintToken(issuer),
      challenge: 'c-self',
    })) as {
      wallet: Wallet;
      vp: { proof: { challenge: string; domain: string } };
    };
    expect(vp.proof).toMatchObject({ challenge: 'c-self', domain: 'files.example.com' });
    expect(existsSync(join(dir, 'credentials.json'))).toBe(true);
    const b = await Wallet.open({ keyStore: createMemoryKeyStore(), credentialStore: createMemoryCredentialStore() });
    const { chain } = await runSnippet(snippet('docs/wallet.md', 'wallet-delegation'), { a: wallet, b });
    expect(chain).toHaveLength(2);
    expect(await b.credentials()).toHaveLength(2);
  });

  it('wallet: server custody presents through the issuer, and a service gets and checks a session token', async () => {
    const challenge = 'c-server';
    const { agentDid, vp } = await runSnippet(snippet('docs/wallet.md', 'wallet-server-custody'), {
      IssuerClient,
      baseUrl: issuer.url,
      adminKey: TEST_ADMIN_KEY,
      enrollmentToken: await mintToken(issuer),
      challenge,
    });
    const { valid, claims } = await runSnippet(snippet('docs/wallet.md', 'wallet-session-token'), {
      issuerUrl: issuer.url,
      presentation: vp,
      challenge,
      verifySessionToken,
    });
    expect(valid).toBe(true);
    expect(claims).toMatchObject({ sub: agentDid, aud: 'files.example.com' });
  });
});

describe('docs/conformance.md', { timeout: 120_000 }, () => {
  it('localConfig.cjs points the W3C suites at endpoints that issue (both cryptosuites) and verify, with a header the issuer accepts', async () => {
    // As the page says: a did:key issuer. Its https URL is this one on 127.0.0.1.
    const issuer = await startTestIssuer({ DID_METHOD: 'key' });
    try {
      const code = snippet('docs/conformance.md', 'w3c-local-config').replace(
        "'https://issuer.example.test'",
        `'${issuer.url}'`,
      );
      expect(code).toContain(issuer.url);
      const module = { exports: {} as { implementations: SuiteImplementation[] } };
      runInNewContext(code, { module, process: { env: { MANDATE_ADMIN_KEY: TEST_ADMIN_KEY } } });
      const [implementation] = module.exports.implementations;
      const post = (endpoint: string, headers: Record<string, string>, body: unknown) =>
        fetch(endpoint, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const credential = {
        '@context': ['https://www.w3.org/ns/credentials/v2', { '@vocab': 'https://example.com/vocab#' }],
        type: ['VerifiableCredential', 'EmployeeCredential'],
        credentialSubject: { id: 'did:example:alice', role: 'auditor' },
      };
      for (const suiteIssuer of implementation?.issuers ?? []) {
        const issued = await post(suiteIssuer.endpoint, suiteIssuer.headers ?? {}, {
          credential,
          ...(suiteIssuer.options ? { options: suiteIssuer.options } : {}),
        });
        expect(issued.status).toBe(201);
        const { verifiableCredential } = (await issued.json()) as {
          verifiableCredential: { proof: { cryptosuite: string } };
        };
        expect(verifiableCredential.proof.cryptosuite).toBe(suiteIssuer.options?.cryptosuite ?? 'eddsa-jcs-2022');
        for (const verifier of implementation?.verifiers ?? [])
          expect((await post(verifier.endpoint, verifier.headers ?? {}, { verifiableCredential })).status).toBe(200);
      }
      // The presentation verifier is there: a body without a presentation is a 400, not a 404.
      for (const verifier of implementation?.vpVerifiers ?? [])
        expect((await post(verifier.endpoint, verifier.headers ?? {}, {})).status).toBe(400);
    } finally {
      await issuer.dispose();
    }
  });
});

describe('docs/verifier.md', () => {
  const platform = didKeyIdentity(seedSigner(generateSeed()));
  const agent = didKeyIdentity(seedSigner(generateSeed()));

  it('the imports exist; a presentation is signed and sent in Authorization as the page shows', async () => {
    await runSnippet(snippet('docs/verifier.md', 'verifier-import'));
    const credential = await issueAgentCredential({
      issuer: platform,
      agentDid: agent.did,
      privilegeScopes: ['files:read'],
      delegationDepth: 0,
      domains: ['files.example.com'],
    });
    const { vp } = await runSnippet(snippet('docs/verifier.md', 'verifier-sign-presentation'), {
      agent,
      credential,
      challenge: 'c-1',
    });
    expect(vp).toMatchObject({ proof: { challenge: 'c-1', domain: 'files.example.com' } });
    const sent: [string, RequestInit | undefined][] = [];
    const fetch = (url: string, init?: RequestInit) => {
      sent.push([url, init]);
      return Promise.resolve(new Response('ok'));
    };
    await runSnippet(snippet('docs/verifier.md', 'verifier-send-presentation'), { vp, fetch });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.[0]).toBe('https://api.example.com/files/1');
    expect((sent[0]?.[1]?.headers as Record<string, string>).authorization).toMatch(/^VP [A-Za-z0-9_-]+$/);
  });

  it('the Hono app asks an anonymous caller for a presentation (401 with the VP challenge)', async () => {
    const { app } = (await runSnippet(snippet('docs/verifier.md', 'verifier-hono'))) as {
      app: { request(url: string): Promise<Response> };
    };
    const res = await app.request('https://files.example.com/files/1');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^VP /);
  });

  it('the node:http server does the same', async () => {
    // The page listens on 8080; here the OS picks a free port.
    const code = snippet('docs/verifier.md', 'verifier-node-http').replace('server.listen(8080)', 'server.listen(0)');
    expect(code).toContain('server.listen(0)');
    const { server } = (await runSnippet(code, {
      options: { trustedIssuers: [platform.did], target: 'files.example.com', requiredScopes: ['files:read'] },
    })) as { server: Server };
    try {
      if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/files/1`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^VP /);
    } finally {
      server.close();
    }
  });

  it('the Express app does the same', async () => {
    const { app } = (await runSnippet(snippet('docs/verifier.md', 'verifier-express'), {
      ISSUER_DID: platform.did,
    })) as { app: { listen(port: number, host: string, ready: () => void): Server } };
    const server = await new Promise<Server>((resolve) => {
      const s: Server = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/files/1`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^VP /);
    } finally {
      server.close();
    }
  });
});

describe('docs/key-directory.md', () => {
  it("a self-custody agent's directory verifies for its origin, and its card lists the same key with its DID", async () => {
    const { answer, card, agent } = (await runSnippet(
      snippet('docs/key-directory.md', 'key-directory-self-custody'),
    )) as {
      answer: Response;
      card: { client_id: string; did: string; jwks: { keys: { kid: string; x: string }[] } };
      agent: { did: string };
    };
    const [key] = card.jwks.keys;
    const verified = await verifyResponseSignature(
      answer,
      new Request('https://agent.example/.well-known/http-message-signatures-directory'),
      {
        tag: 'http-message-signatures-directory',
        requiredComponents: ['"@authority";req'],
        resolveKey: (keyid) => Promise.resolve(keyid === key?.kid ? base64urlToBytes(key.x) : undefined),
      },
    );
    expect(verified.keyid).toBe(key?.kid);
    expect(card).toMatchObject({ client_id: 'https://agent.example/card', did: agent.did });
  });
});
