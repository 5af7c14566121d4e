#!/usr/bin/env node
// The `mandate` operator CLI (docs/cli.md). The CLI is TypeScript run through tsx's loader, in
// this process; cli/main.ts does the work and answers the exit code.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../cli/main.ts');
const code = await run(process.argv.slice(2));
// Exit as soon as the output is flushed: idle keep-alive sockets to the issuer must not hold the
// process open after the answer.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
