// The package's public surface is deliberate (issue 40 item 5): each entry point names its
// exports, public-surface.json next to this file pins them — values and types — and the docs
// list every value. An export added or dropped by accident fails here; one added on purpose
// goes into public-surface.json and into the docs table of its entry point.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoProgram } from '../support/typescript.ts';
import pinned from './public-surface.json' with { type: 'json' };

const repo = fileURLToPath(new URL('../../', import.meta.url));

interface Surface {
  values: string[];
  types: string[];
}

interface Entry {
  /** The package's import specifier (package.json "exports"). */
  specifier: keyof typeof pinned;
  source: string;
  /** The page, and its section, that lists every value. */
  doc: string;
  section: string;
}

const ENTRIES: Entry[] = [
  {
    specifier: 'mandate/wallet',
    source: 'wallet/index.ts',
    doc: 'docs/library.md',
    section: '## Everything `mandate/wallet` exports',
  },
  {
    specifier: 'mandate/wallet/node',
    source: 'wallet/node.ts',
    doc: 'docs/library.md',
    section: '## Everything `mandate/wallet` exports',
  },
  {
    specifier: 'mandate/verifier',
    source: 'verifier-worker/index.ts',
    doc: 'docs/verifier.md',
    section: '## Everything `mandate/verifier` exports',
  },
];

/** What an entry must export: `mandate/wallet/node` is `mandate/wallet` plus its own list. */
function expected(specifier: Entry['specifier']): Surface {
  const own = pinned[specifier];
  if (specifier !== 'mandate/wallet/node') return own;
  const wallet = pinned['mandate/wallet'];
  return { values: [...wallet.values, ...own.values].sort(), types: [...wallet.types, ...own.types].sort() };
}

/** The section's text, up to the next `## ` heading. */
function sectionOf(doc: string, heading: string): string {
  const text = readFileSync(join(repo, doc), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${doc} has no "${heading}" section`);
  const end = text.indexOf('\n## ', start + heading.length + 2);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Every export of each entry as the compiler sees it (the declarations a consumer gets). */
function declaredSurfaces(): Map<string, Surface> {
  const files = ENTRIES.map((entry) => join(repo, entry.source));
  const program = repoProgram(files);
  const checker = program.getTypeChecker();
  const isValue = (symbol: ts.Symbol): boolean => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return (target.flags & ts.SymbolFlags.Value) !== 0;
  };
  const surfaces = new Map<string, Surface>();
  for (const entry of ENTRIES) {
    const file = program.getSourceFile(join(repo, entry.source));
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`${entry.source} is not a module`);
    const exports = checker.getExportsOfModule(module);
    surfaces.set(entry.specifier, {
      values: exports
        .filter(isValue)
        .map((symbol) => symbol.name)
        .sort(),
      types: exports
        .filter((symbol) => !isValue(symbol))
        .map((symbol) => symbol.name)
        .sort(),
    });
  }
  return surfaces;
}

describe('the public surface', () => {
  it.each(ENTRIES)('$specifier exports at run time exactly the pinned values', async ({ specifier, source }) => {
    const module = (await import(join(repo, source))) as Record<string, unknown>;
    expect(Object.keys(module).sort()).toEqual(expected(specifier).values);
  });

  it('declares exactly the pinned values and types', () => {
    const declared = declaredSurfaces();
    for (const { specifier } of ENTRIES) expect(declared.get(specifier), specifier).toEqual(expected(specifier));
  }, 120_000); // builds a program over wallet/ and verifier-worker/: seconds, more under load

  it.each(ENTRIES)('$specifier names its exports: no `export *`', ({ source }) => {
    expect(readFileSync(join(repo, source), 'utf8')).not.toMatch(/^export \*/m);
  });

  it.each(ENTRIES)('every value of $specifier is listed in $doc', ({ specifier, doc, section }) => {
    const text = sectionOf(doc, section);
    const unlisted = expected(specifier).values.filter((name) => !new RegExp(`\`${name}[\`(]`).test(text));
    expect(unlisted).toEqual([]);
  });
});
