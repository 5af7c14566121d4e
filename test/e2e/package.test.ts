// The package as `npm pack` builds it, installed with `npm install` into a project outside this
// repository, so it has only the dependencies it declares: the compiled library runs in plain
// Node (no TypeScript loader), its declarations type-check a NodeNext consumer, and the
// `mandate` CLI runs from it. Nothing but the built files and docs is in the tarball, and the
// issuer's own dependencies (a native SQLite build among them) are not installed with it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** A child Node without the test runner's loaders: what a user's `node app.js` is. */
const plainEnv = { ...process.env, NODE_OPTIONS: '' };

let work: string;
let installed: string;
let packedFiles: string[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mandate-package-'));
  // A real `npm pack`: its prepack script builds the library and the worker bundles.
  await run('npm', ['pack', '--pack-destination', work], { cwd: root, env: plainEnv, maxBuffer: 16 << 20 });
  const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const files = join(work, 'packed');
  await mkdir(files);
  await run('tar', ['-xzf', join(work, tarball), '-C', files, '--strip-components=1']);
  packedFiles = (await readdir(files, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(files, join(entry.parentPath, entry.name)).split('\\').join('/'));
  // A user's project: its dependencies come from npm's cache (filled by this repository's own
  // install), the registry only for what the cache lacks.
  await writeFile(join(work, 'package.json'), '{"name":"consumer","private":true,"type":"module"}');
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`], {
    cwd: work,
    env: plainEnv,
    maxBuffer: 16 << 20,
  });
  installed = join(work, 'node_modules', 'mandate');
}, 300_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the compiled entry points, the worker bundles, the CLI, the docs and the licence — and no sources, tests or data', () => {
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/mandate.mjs',
      'dist/lib/wallet/index.js',
      'dist/lib/wallet/index.d.ts',
      'dist/lib/wallet/node.js',
      'dist/lib/verifier-worker/index.js',
      'dist/lib/cli/main.js',
      'dist/verifier-sw.js',
      'dist/verifier-register.js',
      'docs/protocol.md',
    ]) {
      expect(packedFiles).toContain(file);
    }
    const unexpected = packedFiles.filter(
      (file) =>
        !/^(package\.json|README\.md|LICENSE|bin\/mandate\.mjs|docs\/[a-z0-9-]+\.md|dist\/verifier-(sw|register)\.js|dist\/lib\/.+\.(js|d\.ts))$/.test(
          file,
        ),
    );
    expect(unexpected).toEqual([]);
    // The issuer and its database are not part of the library.
    expect(packedFiles.filter((file) => /(^|\/)(issuer|test|data|console)\//.test(file) || /\.db/.test(file))).toEqual(
      [],
    );
  });

  it("installs only the library's dependencies: no SQLite, no issuer framework", async () => {
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // jsonld: eddsa-rdfc-2022 in mandate/wallet/node, loaded on first use only. zod: the wire
    // contract (wallet/contract) the client's declared types are inferred from.
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@noble/curves',
      '@noble/hashes',
      'hono',
      'idb-keyval',
      'jose',
      'jsonld',
      'multiformats',
      'zod',
    ]);
    for (const absent of ['better-sqlite3', '@hono/zod-openapi', '@hono/node-server', 'tsx', 'typescript']) {
      expect(existsSync(join(work, 'node_modules', absent)), absent).toBe(false);
    }
  });

  it('declarations name the compiled files: no .ts specifier is left in them', async () => {
    const declarations = packedFiles.filter((file) => file.endsWith('.d.ts'));
    expect(declarations.length).toBeGreaterThan(50);
    const tsSpecifier = /(from|import)\s*\(?\s*['"]\.{1,2}\/[^'"]*\.ts['"]/;
    const left: string[] = [];
    for (const file of declarations)
      if (tsSpecifier.test(await readFile(join(work, 'packed', file), 'utf8'))) left.push(file);
    expect(left).toEqual([]);
  });

  it('runs in plain Node: an agent credential issued, presented over HTTP semantics and verified', async () => {
    await writeFile(
      join(work, 'consumer.mjs'),
      `
import {
  createResolver, didKeyIdentity, generateSeed, issueAgentCredential, resolveDidKey, seedSigner, signPresentation, verifyPresentation,
} from 'mandate/wallet';
import { createFileKeyStore } from 'mandate/wallet/node';
import { encodePresentationHeader, issueChallenge, verifyRequest } from 'mandate/verifier';

const identity = () => didKeyIdentity(seedSigner(generateSeed()));
const issuer = identity();
const agent = identity();
const credential = await issueAgentCredential({
  issuer, agentDid: agent.did, privilegeScopes: ['files:read'], delegationDepth: 0,
  validUntil: new Date(Date.now() + 3600_000),
});
const options = { trustedIssuers: [issuer.did], target: 'files.example.com' };
const { challenge } = await issueChallenge(options);
const vp = await signPresentation({ holder: agent, credentials: [credential], challenge, domain: 'files.example.com' });
const request = new Request('http://127.0.0.1/files/1', { headers: { authorization: encodePresentationHeader(vp) } });
const verdict = await verifyRequest(request, options);
const replayed = await verifyRequest(new Request(request.url, { headers: request.headers }), options);
const resolver = createResolver({ methods: { key: resolveDidKey } });
const untrusted = await verifyPresentation(vp, { trustedIssuers: [agent.did], expectedDomain: 'files.example.com', expectedChallenge: challenge, resolver });
console.log(JSON.stringify({
  allowed: verdict.allowed,
  agentDid: verdict.allowed ? verdict.claims.agentDid === agent.did : null,
  effectiveScopes: verdict.allowed ? verdict.claims.effectiveScopes : null,
  replayed: replayed.allowed ? 'allowed' : replayed.body.reason,
  untrusted: untrusted.valid ? 'valid' : untrusted.reason,
  fileKeyStore: typeof createFileKeyStore,
}));
`,
    );
    const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: work, env: plainEnv });
    expect(JSON.parse(stdout)).toEqual({
      allowed: true,
      agentDid: true,
      effectiveScopes: ['files:read'],
      replayed: 'CHALLENGE_MISMATCH',
      untrusted: 'UNTRUSTED_ISSUER',
      fileKeyStore: 'function',
    });
  }, 60_000);

  it('signs and verifies eddsa-rdfc-2022 in plain Node (jsonld.js, CommonJS, loaded from the compiled ESM)', async () => {
    await writeFile(
      join(work, 'rdfc.mjs'),
      `
import { createProof, eddsaRdfc2022, generateSeed, seedSigner, verifyProof } from 'mandate/wallet/node';
const signer = seedSigner(generateSeed());
const options = { signer, verificationMethod: 'did:example:issuer#key-1', proofPurpose: 'assertionMethod', cryptosuite: eddsaRdfc2022 };
const credential = { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiableCredential'], issuer: 'did:example:issuer', credentialSubject: { id: 'did:example:subject', name: 'Alice' } };
const signed = await createProof(credential, options);
const verify = (doc) => verifyProof(doc, { resolveKey: async () => signer.publicKey, expectedProofPurpose: 'assertionMethod', cryptosuites: [eddsaRdfc2022] });
const { proofs } = await verify(signed);
const refused = await createProof({ ...credential, undefinedTerm: 1 }, options).then(() => 'signed', (error) => error.code);
console.log(JSON.stringify({ cryptosuite: signed.proof.cryptosuite, verified: proofs.length, refused }));
`,
    );
    const { stdout } = await run(process.execPath, ['rdfc.mjs'], { cwd: work, env: plainEnv });
    expect(JSON.parse(stdout)).toEqual({ cryptosuite: 'eddsa-rdfc-2022', verified: 1, refused: 'PROOF_MALFORMED' });
  }, 60_000);

  it('types a TypeScript consumer (NodeNext resolution): correct use compiles, misuse is a type error', async () => {
    const consumer = join(work, 'types');
    await mkdir(consumer, { recursive: true });
    await writeFile(join(consumer, 'package.json'), '{"type":"module"}');
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          // What tsc emitted from the type-checked sources is consistent by construction, and a
          // broken specifier between declarations shows up as a missing export in the consumer;
          // checking every .d.ts (@types/node included) would triple the time.
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(root, 'node_modules', '@types')],
          lib: ['ES2023', 'DOM'],
        },
        files: ['good.ts', 'misuse.ts'],
      }),
    );
    await writeFile(
      join(consumer, 'good.ts'),
      `
import { createResolver, resolveDidKey, verifyPresentation, type VerificationResult } from 'mandate/wallet';
import type { RequestVerdict } from 'mandate/verifier';
import { createFileKeyStore } from 'mandate/wallet/node';
export async function check(vp: unknown): Promise<string[]> {
  const result: VerificationResult = await verifyPresentation(vp, {
    trustedIssuers: ['did:key:z6Mk'],
    expectedDomain: 'files.example.com',
    resolver: createResolver({ methods: { key: resolveDidKey } }),
  });
  return result.valid ? result.effectiveScopes : [result.reason];
}
export const allowed = (verdict: RequestVerdict): boolean => verdict.allowed;
export const store = createFileKeyStore;
`,
    );
    await writeFile(
      join(consumer, 'misuse.ts'),
      `import { sha256 } from 'mandate/wallet';\nexport const n: number = sha256(new Uint8Array(1));\n`,
    );
    // One compilation (tsc is the heavy part): `mandate` resolves through work/node_modules, as
    // from any project's folder.
    const output = await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer, env: plainEnv }).then(
      () => '',
      (error: Error & { stdout?: string }) => error.stdout ?? error.message,
    );
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^misuse\.ts\(2,14\): error TS2322: Type 'Uint8Array.*' is not assignable to type 'number'/,
    );
  }, 120_000);

  it('runs the mandate CLI from the compiled copy: it verifies a presentation locally', async () => {
    const bin = join(installed, 'bin', 'mandate.mjs');
    const help = await run(process.execPath, [bin, '--help'], { cwd: work, env: plainEnv });
    expect(help.stdout).toMatch(/^mandate: operate a Mandate issuer/);

    await writeFile(
      join(work, 'present.mjs'),
      `
import { didKeyIdentity, generateSeed, issueAgentCredential, seedSigner, signPresentation } from 'mandate/wallet';
const identity = () => didKeyIdentity(seedSigner(generateSeed()));
const issuer = identity();
const agent = identity();
const credential = await issueAgentCredential({ issuer, agentDid: agent.did, privilegeScopes: ['files'], delegationDepth: 0, validUntil: new Date(Date.now() + 3600_000) });
const vp = await signPresentation({ holder: agent, credentials: [credential], challenge: 'n-1', domain: 'files.example.com' });
console.log(JSON.stringify({ issuer: issuer.did, vp }));
`,
    );
    const { stdout } = await run(process.execPath, ['present.mjs'], { cwd: work, env: plainEnv });
    const { issuer, vp } = JSON.parse(stdout) as { issuer: string; vp: unknown };
    await writeFile(join(work, 'vp.json'), JSON.stringify(vp));
    const args = [
      bin,
      'verify',
      'vp.json',
      '--trusted-issuer',
      issuer,
      '--target',
      'files.example.com',
      '--challenge',
      'n-1',
    ];
    const verified = await run(process.execPath, args, { cwd: work, env: plainEnv });
    expect(verified.stdout).toMatch(/^VALID/m);

    const denied = await run(process.execPath, [...args.slice(0, -1), 'n-2'], { cwd: work, env: plainEnv }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code, stdout: error.stdout ?? '' }),
    );
    expect(denied.code).toBe(3);
    expect(denied.stdout).toMatch(/^DENIED {2}CHALLENGE_MISMATCH/m);
  }, 60_000);
});
