// Runs the benchmarks in bench/ and prints ONE JSON object on stdout (progress goes to stderr):
//   {"machine": {"node": "v20…", "cpus": 2}, "results": {"crypto": {…}, …}}
// A bench is any bench/<name>.ts exporting `async function run(): Promise<Record<string, unknown>>`;
// files without `run` are helpers and are skipped. Arguments select benches by name:
//   npm run bench              # all
//   npm run bench -- crypto    # only bench/crypto.ts
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';

type Bench = () => Promise<Record<string, unknown>>;

const here = new URL('.', import.meta.url);
const requested = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && file !== 'run.ts')
  .sort();
const names = files.map((file) => file.slice(0, -'.ts'.length));

const unknown = requested.filter((name) => !names.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown bench: ${unknown.join(', ')} (available: ${names.join(', ')})\n`);
  process.exit(2);
}

const results: Record<string, Record<string, unknown>> = {};
for (const name of names) {
  if (requested.length > 0 && !requested.includes(name)) continue;
  const module = (await import(new URL(`${name}.ts`, here).href)) as { run?: unknown };
  if (typeof module.run !== 'function') {
    if (requested.includes(name)) {
      process.stderr.write(`bench/${name}.ts does not export run()\n`);
      process.exit(2);
    }
    continue;
  }
  process.stderr.write(`bench ${name}…\n`);
  const started = performance.now();
  results[name] = await (module.run as Bench)();
  process.stderr.write(`bench ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

process.stdout.write(
  `${JSON.stringify({ machine: { node: process.version, cpus: cpus().length }, results }, null, 2)}\n`,
);
