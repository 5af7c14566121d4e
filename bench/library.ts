// The library the benches time: `mandate/wallet` as the package ships it, compiled by tsc with
// the package's own settings (tools/build-lib.ts) into dist/bench-lib/, fresh on every run so
// it matches the sources. A helper module (no `run`), so bench/run.ts skips it.
//
// Why not the TypeScript sources that tsx loads: tsx compiles with esbuild's `keepNames`, which
// wraps every function a call creates (each closure of one verification) in a naming helper.
// Measured in one process, that makes a verification's JavaScript 10–15% slower than the
// compiled package's, a cost no user of the package pays. tsx leaves plain JavaScript alone, so
// Digital Bazaar's packages would run as shipped while Mandate did not.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildLib } from '../tools/build-lib.ts';
import type * as Verifier from '../verifier-worker/index.ts';
import type * as Wallet from '../wallet/index.ts';

/** Where the benches' copy is compiled: inside the repository, so it finds node_modules. */
const BENCH_LIB_DIR = fileURLToPath(new URL('../dist/bench-lib/', import.meta.url));

let compiled: Promise<typeof Wallet> | undefined;

/** The compiled `mandate/wallet`, built once per process (about 10 s). */
export function shippedWallet(): Promise<typeof Wallet> {
  compiled ??= (async () => {
    const started = performance.now();
    const { outDir } = await buildLib({ outDir: BENCH_LIB_DIR, declarations: false });
    process.stderr.write(
      `compiled the library for the benches in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    return (await import(pathToFileURL(join(outDir, 'wallet', 'index.js')).href)) as typeof Wallet;
  })();
  return compiled;
}

/** The compiled `mandate/verifier` (verifyRequest, the chain cache), from the same build. */
export async function shippedVerifier(): Promise<typeof Verifier> {
  await shippedWallet();
  return (await import(pathToFileURL(join(BENCH_LIB_DIR, 'verifier-worker', 'index.js')).href)) as typeof Verifier;
}
