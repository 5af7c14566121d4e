/**
 * `npm run build:console`: bundles the operator console (console/index.html and console/src)
 * with Vite into dist/console/, served by the issuer at /console (issuer/routes/console.ts).
 *
 * The output must satisfy the console's CSP (`script-src 'self'`, `style-src 'self'`): one
 * module script and one stylesheet, no inline code — hence no modulepreload polyfill (an
 * inline script) and CSS always emitted as a file.
 */
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(here, '..');

export interface ConsoleBuild {
  outDir: string;
}

/**
 * Builds a static page for a strict CSP (script-src and style-src 'self'): no inline module
 * preload polyfill, CSS as one file, no inlined assets. Shared by the console and the demo.
 */
export async function buildStrictPage(options: { root: string; base: string; outDir: string }): Promise<void> {
  await build({
    configFile: false,
    root: options.root,
    base: options.base,
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir: options.outDir,
      emptyOutDir: true,
      assetsDir: 'assets',
      modulePreload: { polyfill: false },
      cssCodeSplit: false,
      assetsInlineLimit: 0,
      target: 'es2022',
      sourcemap: false,
      reportCompressedSize: false,
    },
  });
}

/** Builds the console into `outDir` (default dist/console/, emptied first). */
export async function buildConsole(options: { outDir?: string } = {}): Promise<ConsoleBuild> {
  const outDir =
    options.outDir === undefined
      ? join(repoRoot, 'dist', 'console')
      : isAbsolute(options.outDir)
        ? options.outDir
        : join(repoRoot, options.outDir);
  await buildStrictPage({ root: here, base: '/console/', outDir });
  return { outDir };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { outDir } = await buildConsole();
  console.log(`console built into ${outDir}`);
}
