/**
 * The session-token signing key's row in `settings` (issuer/services/session-tokens.ts). The
 * value is an AES-256-GCM envelope under the key-encryption key, never the key in clear.
 */
import type { IssuerDb, Sync } from './db.ts';

/** Where the encrypted key lives. */
export interface SessionKeyStore {
  load(): Promise<string | undefined>;
  /**
   * First writer wins: stores `value` unless a value exists, atomically, and returns the value
   * stored afterwards. Concurrent callers all get the same (first) value back.
   */
  saveIfAbsent(value: string): Promise<string>;
}

export const SESSION_KEY_SETTING = 'sessions.signing_key';

export function createSqliteSessionKeyStore(db: IssuerDb): Sync<SessionKeyStore> {
  const select = db.sqlite.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
  const insert = db.sqlite.prepare('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)');
  return {
    load: () => select.get(SESSION_KEY_SETTING)?.value,
    saveIfAbsent(value) {
      return db.transaction(() => {
        insert.run(SESSION_KEY_SETTING, value);
        return select.get(SESSION_KEY_SETTING)?.value ?? value;
      });
    },
  };
}
