// Runs once per `vitest run` before the node project: one PostgreSQL and one Redis for every
// test file (real servers, docs/operations.md §Tests), or the ones MANDATE_TEST_DATABASE_URL /
// MANDATE_TEST_REDIS_URL name. Test files reach them through test/support/servers.ts and keep
// to a database / key prefix of their own, so files running in parallel never meet.
import type { TestProject } from 'vitest/node';
import { findPostgresBin, INSTALL_HINT, startPostgres } from './postgres.ts';
import { findRedisServer, startRedis } from './redis.ts';

interface Started {
  url: string;
  stop?: () => Promise<void>;
}

async function postgres(): Promise<Started> {
  const url = process.env.MANDATE_TEST_DATABASE_URL;
  if (url) return { url };
  const bin = findPostgresBin();
  if (bin === undefined) throw new Error(`PostgreSQL not found: ${INSTALL_HINT}`);
  return startPostgres(bin);
}

async function redis(): Promise<Started> {
  const url = process.env.MANDATE_TEST_REDIS_URL;
  if (url) return { url };
  const binary = findRedisServer();
  if (binary === undefined) throw new Error(`redis-server not found: ${INSTALL_HINT}`);
  return startRedis(binary);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const results = await Promise.allSettled([postgres(), redis()]);
  const servers = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stopAll = async (): Promise<void> => {
    await Promise.all(servers.map((s) => (s.stop ? s.stop() : Promise.resolve())));
  };
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  const [pg, redisServer] = servers as [Started, Started];
  project.provide('postgresUrl', pg.url);
  project.provide('redisUrl', redisServer.url);
  // One line per run: how long the harness took to get its servers (docs/operations.md §Tests).
  const where = (s: Started, name: string) => (s.stop ? s.url : name); // a given URL may hold a password
  console.log(
    `test servers ready in ${Date.now() - started} ms: PostgreSQL ${where(pg, 'MANDATE_TEST_DATABASE_URL')}, Redis ${where(redisServer, 'MANDATE_TEST_REDIS_URL')}`,
  );
  // A run that is interrupted still takes its servers down with it.
  const onExit = (): void => void stopAll();
  process.once('exit', onExit);
  return async () => {
    process.off('exit', onExit);
    await stopAll();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server URL (superuser): make a database of your own with freshDatabase(). */
    postgresUrl: string;
    /** A Redis URL shared by all test files: use a key prefix of your own (freshRedisPrefix()). */
    redisUrl: string;
  }
}
