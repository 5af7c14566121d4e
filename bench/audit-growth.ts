// Does vp/verify slow down as the audit log grows? (issue 26 §5: flat within ±10 % from 10k to
// 1M records.) Two issuers (child processes, bench/http.ts, node:crypto backend) on SQLite files
// whose audit tables were pre-filled before start with a valid hash chain of SMALL and LARGE
// records; POST /v1/vp/verify at 32 connections on each, in alternating rounds, and the ratio
// large ÷ small of requests/s and of requests per issuer CPU-second. The pre-filled chain is
// checked through GET /v1/audit/verify at the end (it must still be intact with the bench's records).
//
//   npm run bench -- audit-growth      BENCH_AUDIT_SMALL / BENCH_AUDIT_LARGE change the sizes
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AUDIT_GENESIS_HASH, auditRecordHash } from '../issuer/audit.ts';
import type { AuditRow } from '../issuer/storage/audit-store.ts';
import { openDatabase } from '../issuer/storage/db.ts';
import {
  ADMIN_KEY,
  api,
  benchVpVerify,
  childCpuSeconds,
  enrollAgent,
  presentations,
  startChild,
  stopChild,
  TARGET,
  type Child,
  type Run,
} from './http.ts';
import { median, round } from './measure.ts';

const SMALL = Number(process.env.BENCH_AUDIT_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_AUDIT_LARGE ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 4);
const SECONDS_PER_ROUND = Number(process.env.BENCH_AUDIT_ROUND_SECONDS ?? 3);
const PRESENTATIONS = Number(process.env.BENCH_HTTP_PRESENTATIONS ?? 40_000);
const BATCH = 10_000;

/** `count` chained records straight into a new database file (what 1M vp/verify decisions leave). */
function prefill(path: string, count: number): void {
  const db = openDatabase(path);
  const insert = db.sqlite
    .prepare(`INSERT INTO audit (seq, id, at, event, agent_did, actor, reason, vp_id, data, prev_hash, hash)
    VALUES (@seq, @id, @at, @event, @agentDid, @actor, @reason, @vpId, @data, @prevHash, @hash)`);
  let prevHash = AUDIT_GENESIS_HASH;
  const start = Date.now() - count;
  for (let seq = 1; seq <= count;) {
    db.transaction(() => {
      for (const end = Math.min(count, seq + BATCH - 1); seq <= end; seq++) {
        const row: Omit<AuditRow, 'hash'> = {
          seq,
          id: crypto.randomUUID(),
          at: start + seq,
          event: seq % 10 === 0 ? 'VP_REJECTED' : 'VP_VERIFIED',
          agentDid: `did:key:z6MkBench${seq % 1000}`,
          actor: 'anonymous',
          reason: seq % 10 === 0 ? 'REPLAYED' : 'VALID',
          vpId: `urn:uuid:${crypto.randomUUID()}`,
          data: `{"effectiveScopes":["files:read"],"session":false,"target":"${TARGET}"}`,
          prevHash,
        };
        prevHash = auditRecordHash(row);
        insert.run({ ...row, hash: prevHash });
      }
    });
  }
  db.close();
}

/** Pre-filled files are kept here between runs (1M records take about 2 minutes to write). */
const TEMPLATES = fileURLToPath(new URL('../dist/bench-audit/', import.meta.url));

/** A database file with `count` pre-filled records, built once and then copied for each run. */
function template(count: number): string {
  const path = join(TEMPLATES, `audit-${count}.db`);
  if (existsSync(path)) return path;
  mkdirSync(TEMPLATES, { recursive: true });
  const started = performance.now();
  prefill(`${path}.partial`, count);
  renameSync(`${path}.partial`, path);
  process.stderr.write(
    `  audit-growth: ${count} records pre-filled in ${((performance.now() - started) / 1000).toFixed(1)} s (kept in ${path})\n`,
  );
  return path;
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-bench-audit-'));
  const sizes = { small: SMALL, large: LARGE } as const;
  type Size = keyof typeof sizes;
  const children = {} as Record<Size, Child>;
  try {
    for (const size of ['small', 'large'] as const) {
      copyFileSync(template(sizes[size]), join(dir, `${size}.db`));
      children[size] = await startChild('node', { MANDATE_BENCH_SQLITE_PATH: join(dir, `${size}.db`) });
    }
    const stock = {} as Record<Size, { bodies: string[]; next: number }>;
    for (const size of ['small', 'large'] as const) {
      const { agent, credential } = await enrollAgent(children[size].url);
      stock[size] = { bodies: await presentations(agent, credential, PRESENTATIONS), next: 0 };
      await benchVpVerify(children[size].url, stock[size], 2);
    }
    const rounds: Record<Size, Array<Run & { cpu: number }>> = { small: [], large: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const size of i % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const)) {
        const cpu = await childCpuSeconds(children[size]);
        const result = await benchVpVerify(children[size].url, stock[size], SECONDS_PER_ROUND);
        rounds[size].push({ ...result, cpu: (await childCpuSeconds(children[size])) - cpu });
      }
    }
    const summary = (size: Size) => {
      const runs = rounds[size];
      const requests = runs.reduce((n, r) => n + r.requests, 0);
      return {
        records: sizes[size],
        requestsPerSec: round(requests / (runs.length * SECONDS_PER_ROUND), 1),
        requestsPerCpuSec: round(requests / runs.reduce((n, r) => n + r.cpu, 0), 1),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        perRound: runs.map((r) => r.requestsPerSec),
        non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
      };
    };
    const small = summary('small');
    const large = summary('large');
    const verdict = await fetch(`${children.large.url}/v1/audit/verify`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    }).then((res) => res.json() as Promise<Record<string, unknown>>);
    const head = await api(children.large.url, '/v1/audit?order=desc&limit=1', undefined, true);
    return {
      endpoint: 'POST /v1/vp/verify, 32 connections, node:crypto backend',
      small,
      large,
      ratios: {
        largeOverSmall: round(large.requestsPerSec / small.requestsPerSec),
        largeOverSmallByCpu: round(large.requestsPerCpuSec / small.requestsPerCpuSec),
      },
      largeChainAfterRun: verdict,
      largeHeadSeq: (head.json.records as Array<{ seq: number }> | undefined)?.[0]?.seq,
    };
  } finally {
    for (const child of Object.values(children)) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
