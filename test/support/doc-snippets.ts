// The code blocks of README.md and docs/*.md, read from the markdown itself so a test that runs
// one cannot drift from what a reader copies. A block a test runs is marked, on the line above
// its fence, `<!-- run: <name> -->` (or an older test's `<!-- example: <name> -->`); one that is
// not meant to run alone says why: `<!-- not run: <reason> -->`. `runSnippet` turns a block
// into a module: its imports kept (`mandate/*` pointed at this repository's sources), the rest
// wrapped in an async function whose free variables — what the surrounding prose says the
// reader already has — are passed in, and which returns every top-level name it declares.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CodeBlock {
  /** Path from the repository root (README.md, docs/oauth.md). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language (`ts`, `sh`, …; '' when none). */
  lang: string;
  code: string;
  /** The `<!-- … -->` comment on the nearest non-blank line before the fence, if any. */
  marker: { kind: 'run' | 'example' | 'not run'; text: string } | undefined;
}

const MARKER = /^<!--\s*(run|example|not run):\s*(.*?)\s*-->$/;

/** Every fenced block of one markdown file. */
export function codeBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i] as string);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !(lines[end] as string).startsWith('```')) end++;
    // The marker is the nearest line above the fence that is not blank.
    let above = i - 1;
    while (above >= 0 && (lines[above] as string).trim() === '') above--;
    const before = MARKER.exec((lines[above] ?? '').trim());
    blocks.push({
      file,
      line: i + 1,
      lang: open[1] ?? '',
      code: lines.slice(i + 1, end).join('\n'),
      marker: before ? { kind: before[1] as 'run' | 'example' | 'not run', text: before[2] as string } : undefined,
    });
    i = end;
  }
  return blocks;
}

/** README.md and every docs/*.md. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** The block marked `<!-- run: <name> -->` in `file`. */
export function snippet(file: string, name: string): string {
  const found = codeBlocks(file).filter((b) => b.marker?.kind === 'run' && b.marker.text === name);
  if (found.length !== 1) throw new Error(`${file}: ${found.length} blocks marked <!-- run: ${name} -->, expected 1`);
  return (found[0] as CodeBlock).code;
}

const PACKAGE_ENTRIES: Record<string, string> = {
  'mandate/wallet': 'wallet/index.ts',
  'mandate/wallet/node': 'wallet/node.ts',
  'mandate/verifier': 'verifier-worker/index.ts',
};

/** The names a binding declares (`a`, `{ a, b: c }`, `[d, ...e]`). */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : boundNames(element.name)));
}

/** The module text: imports hoisted, the rest in `export default async (context) => ({…names})`. */
export function snippetModule(code: string, contextNames: readonly string[]): string {
  const source = ts.createSourceFile('snippet.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const imports: string[] = [];
  const body: string[] = [];
  const names: string[] = [];
  for (const statement of source.statements) {
    const text = code.slice(statement.getFullStart(), statement.end);
    if (ts.isImportDeclaration(statement)) {
      const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
      const entry = PACKAGE_ENTRIES[specifier];
      imports.push(
        entry === undefined ? text : text.replace(`'${specifier}'`, `'${pathToFileURL(join(REPO, entry)).href}'`),
      );
      continue;
    }
    if (ts.isVariableStatement(statement))
      names.push(...statement.declarationList.declarations.flatMap((d) => boundNames(d.name)));
    if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name)
      names.push(statement.name.text);
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.find((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : undefined;
    // Inside a function nothing is exported: the names are returned instead.
    body.push(
      exported === undefined
        ? text
        : code.slice(statement.getFullStart(), exported.getStart()) + code.slice(exported.end, statement.end),
    );
  }
  return [
    ...imports,
    `export default async function run(context: any) {`,
    `  const { ${contextNames.join(', ')} } = context;`,
    body.join('\n'),
    `  return { ${names.join(', ')} };`,
    `}`,
  ].join('\n');
}

/**
 * Runs `code` as the reader would, with `context` as its free variables; resolves to the names
 * it declares. The module is written next to the tests, so packages resolve from this
 * repository's node_modules, and removed afterwards.
 */
export async function runSnippet(
  code: string,
  context: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(REPO, 'test', 'docs', '.tmp-snippet-'));
  try {
    const file = join(dir, 'snippet.ts');
    writeFileSync(file, snippetModule(code, Object.keys(context)));
    const module = (await import(pathToFileURL(file).href)) as {
      default: (context: Record<string, unknown>) => Promise<Record<string, unknown>>;
    };
    return await module.default(context);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
