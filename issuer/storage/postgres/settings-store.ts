/** Small key/value settings on PostgreSQL (last writer wins). */
import type { SettingsStore } from '../settings-store.ts';
import type { Sql } from './pool.ts';

export function createPostgresSettingsStore(sql: Sql): SettingsStore {
  return {
    async get(key) {
      return (await sql.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]?.value;
    },
    async set(key, value) {
      await sql.query(
        'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
        [key, value],
      );
    },
  };
}
