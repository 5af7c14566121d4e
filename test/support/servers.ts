/**
 * What a test file needs of the run's PostgreSQL and Redis (started by global-servers.ts):
 * a database of its own, a Redis key prefix of its own, and the URLs.
 *
 * @example
 * ```ts
 * let db: FreshDatabase;
 * beforeAll(async () => (db = await freshDatabase()));
 * afterAll(() => db.drop());
 * ```
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createDatabase, type FreshDatabase } from './postgres.ts';

export type { FreshDatabase } from './postgres.ts';
export { backendPid, untilWaitingOnLock } from './postgres.ts';

/** The run's PostgreSQL server (its `postgres` database): create databases on it, do not write to it. */
export function postgresServerUrl(): string {
  return inject('postgresUrl');
}

/** The run's Redis, shared by every test file. */
export function redisUrl(): string {
  return inject('redisUrl');
}

/** An empty database for this suite on the run's PostgreSQL; `drop()` it in afterAll. */
export function freshDatabase(): Promise<FreshDatabase> {
  return createDatabase(postgresServerUrl());
}

/** A key prefix no other suite uses (`t:<random>:`), for the shared Redis. */
export function freshRedisPrefix(): string {
  return `t:${randomBytes(6).toString('hex')}:`;
}
