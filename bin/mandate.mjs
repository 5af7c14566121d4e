#!/usr/bin/env node
// The `mandate` operator CLI (docs/cli.md); cli/main.ts does the work and answers the exit code.
// In a checkout the TypeScript sources run through tsx's loader, in this process, so an edit
// takes effect at once; the published package has no sources and runs its compiled copy
// (dist/lib/cli, `npm run build:lib`).
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  main = await import(source.href);
} else {
  main = await import('../dist/lib/cli/main.js');
}
const code = await main.run(process.argv.slice(2));
// Exit as soon as the output is flushed: idle keep-alive sockets to the issuer must not hold the
// process open after the answer.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
