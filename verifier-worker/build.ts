/**
 * `npm run build`: bundles the service-worker verifier, its page helper and the "verify only"
 * wallet entry (verifier-worker/vite.sw.config.ts), and prints each file's minified and gzip
 * sizes against the worker's budget: 40 KB gzip, where Digital Bazaar's eddsa-jcs-2022 verify
 * stack alone is about 56 KB.
 *
 * Sizes are measured here, with Node's zlib at level 9 (the level CDNs and `gzip -9` use), so
 * the figure does not depend on a server's compression settings.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { BUNDLES, bundleConfig } from './vite.sw.config.ts';

/** The worker bundle's budget, in gzip bytes (1 KB = 1000 bytes, as the budget is stated). */
export const WORKER_GZIP_BUDGET = 40_000;

export interface BundleSize {
  fileName: string;
  path: string;
  bytes: number;
  gzipBytes: number;
}

export interface BuildReport {
  outDir: string;
  bundles: BundleSize[];
  /** The worker's gzip size is within WORKER_GZIP_BUDGET. */
  withinBudget: boolean;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds every bundle into `outDir` (default `dist/`, emptied of earlier builds of them first). */
export async function buildVerifierBundles(options: { outDir?: string } = {}): Promise<BuildReport> {
  const outDir =
    options.outDir === undefined
      ? join(root, 'dist')
      : isAbsolute(options.outDir)
        ? options.outDir
        : join(root, options.outDir);
  await mkdir(outDir, { recursive: true });
  const bundles: BundleSize[] = [];
  // One after another: the machine is shared, and the three builds share most modules.
  for (const spec of BUNDLES) {
    const path = join(outDir, spec.fileName);
    await rm(path, { force: true });
    await build(bundleConfig(spec, outDir));
    const code = await readFile(path);
    bundles.push({ fileName: spec.fileName, path, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length });
  }
  const worker = bundles.find((b) => b.fileName === 'verifier-sw.js');
  return { outDir, bundles, withinBudget: worker !== undefined && worker.gzipBytes <= WORKER_GZIP_BUDGET };
}

function kb(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} KB`;
}

/** The size table `npm run build` prints. */
export function formatReport(report: BuildReport): string {
  const lines = [
    'file                      minified     gzip -9',
    ...report.bundles.map((b) => `${b.fileName.padEnd(24)} ${kb(b.bytes).padStart(9)} ${kb(b.gzipBytes).padStart(12)}`),
  ];
  const worker = report.bundles.find((b) => b.fileName === 'verifier-sw.js');
  if (worker) {
    lines.push(
      `worker budget: ${kb(worker.gzipBytes)} of ${kb(WORKER_GZIP_BUDGET)} gzip — ${report.withinBudget ? 'within budget' : 'OVER BUDGET'}`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await buildVerifierBundles();
  console.log(`built into ${report.outDir}\n${formatReport(report)}`);
  if (!report.withinBudget) process.exitCode = 1;
}
