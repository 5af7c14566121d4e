/**
 * The session-token signing key's row in `settings`, on PostgreSQL. First writer wins across
 * instances: INSERT … ON CONFLICT DO NOTHING waits for a concurrent insert of the key to commit
 * and then inserts nothing; the SELECT after it (a new snapshot under READ COMMITTED) reads
 * whichever value was stored first.
 */
import { SESSION_KEY_SETTING, type SessionKeyStore } from '../session-key-store.ts';
import type { Sql } from './pool.ts';

export function createPostgresSessionKeyStore(sql: Sql): SessionKeyStore {
  const load = async () =>
    (await sql.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [SESSION_KEY_SETTING])).rows[0]
      ?.value;
  return {
    load,
    async saveIfAbsent(value) {
      await sql.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
        SESSION_KEY_SETTING,
        value,
      ]);
      return (await load()) ?? value;
    },
  };
}
