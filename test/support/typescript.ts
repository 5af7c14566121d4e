// One TypeScript compiler for the tests that type-check (documented examples, the pinned public
// surface): the repository's tsconfig.json, read once, and the files it parses (lib.d.ts,
// @types/node, the MCP SDK's and our own sources) parsed once per worker and shared by every
// program built here, as an editor's language service shares them. Parsing is most of a
// program's cost; each program still binds and checks its own files.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const parsed = new Map<string, ts.SourceFile>();
let options: ts.CompilerOptions | undefined;
let previous: ts.Program | undefined;

/** tsconfig.json's compiler options, without emit. */
function repoOptions(): ts.CompilerOptions {
  if (options) return options;
  const config = ts.getParsedCommandLineOfConfigFile(
    join(repo, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  options = { ...config.options, noEmit: true };
  return options;
}

/** A program over `rootNames` with the repository's options; files outside temp dirs are parsed once. */
export function repoProgram(rootNames: readonly string[]): ts.Program {
  const compilerOptions = repoOptions();
  const host = ts.createCompilerHost(compilerOptions);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const known = parsed.get(fileName);
    if (known) return known;
    const file = read(fileName, languageVersion, onError, shouldCreate);
    // A test's own temp file (`.tmp-…`) is written per run and may be rewritten: never reused.
    if (file && !fileName.includes('/.tmp-')) parsed.set(fileName, file);
    return file;
  };
  previous = ts.createProgram({
    rootNames,
    options: compilerOptions,
    host,
    ...(previous ? { oldProgram: previous } : {}),
  });
  return previous;
}

/** `file`'s type errors in `program`, each as "line N: message" (N counted from 1). */
export function typeErrors(program: ts.Program, file: string): string[] {
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return `${at ? `line ${at.line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
