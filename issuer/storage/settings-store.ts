/** Small key/value settings of the issuer (its DID and its default status lists). */
import type { IssuerDb, Sync } from './db.ts';

export interface SettingsStore {
  get(key: string): Promise<string | undefined>;
  /** Inserts or replaces (last writer wins). */
  set(key: string, value: string): Promise<void>;
}

export function createSqliteSettingsStore(db: IssuerDb): Sync<SettingsStore> {
  const get = db.sqlite.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
  const set = db.sqlite.prepare(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  );
  return {
    get: (key) => get.get(key)?.value,
    set: (key, value) => void set.run(key, value),
  };
}
