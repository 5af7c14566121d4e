// docs/library.md shows one end-to-end example (issue, delegate, grant, present, verify, revoke,
// verify again). This runs that very block, so the page cannot drift from the API: the block
// after `<!-- example: library -->` is written, with its `mandate/wallet` import pointed at the
// repository's wallet/index.ts, to a temporary file next to this test, type-checked with the
// repository's tsconfig, then imported, and what it prints is compared with what the page says.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoProgram, typeErrors } from '../support/typescript.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const doc = readFileSync(join(repo, 'docs', 'library.md'), 'utf8');

/** The fenced ```ts block right after the marker. */
function exampleBlock(markdown: string): string {
  const match = /<!-- example: library -->\s*\n```ts\n([\s\S]*?)\n```/.exec(markdown);
  if (!match) throw new Error('docs/library.md has no ```ts block after <!-- example: library -->');
  return match[1] as string;
}

const code = exampleBlock(doc);
/** What the page says the example prints: the `// …` comment after each console.log. */
const promised = [...code.matchAll(/^console\.log\(.*\);\s*\/\/\s*(.+)$/gm)].map((m) => (m[1] as string).trim());

describe('docs/library.md example', () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(join(here, '.tmp-docs-library-'));
    file = join(dir, 'example.ts');
    const wallet = relative(dir, join(repo, 'wallet', 'index.ts'))
      .split('\\')
      .join('/');
    writeFileSync(
      file,
      code.replaceAll("from 'mandate/wallet'", `from '${wallet.startsWith('.') ? wallet : `./${wallet}`}'`),
    );
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports only from mandate/wallet', () => {
    const sources = [...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(sources).toEqual(['mandate/wallet']);
  });

  it('type-checks against the current API', () => {
    const messages = typeErrors(repoProgram([file]), file).map((message) => `example ${message}`);
    expect(messages).toEqual([]);
  }, 60_000); // a whole-program check of wallet/, slower than the default budget under load

  it('runs: accepted with files:read, then refused as CREDENTIAL_REVOKED, as the page says', async () => {
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      printed.push(args.map(String).join(' '));
    });
    try {
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
    }
    expect(printed).toEqual(['files:read', 'CREDENTIAL_REVOKED']);
    expect(promised).toEqual(printed);
  });
});
