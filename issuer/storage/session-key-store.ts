/**
 * The session-token signing key's row in `settings` (issuer/services/session-tokens.ts). The
 * value is an AES-256-GCM envelope under the key-encryption key, never the key in clear.
 */
import type { IssuerDb } from './db.ts';

/** Where the encrypted key lives; synchronous like better-sqlite3. */
export interface SessionKeyStore {
  load(): string | undefined;
  /** Stores `value` unless a value exists; returns the value stored afterwards (first writer wins). */
  saveIfAbsent(value: string): string;
}

export const SESSION_KEY_SETTING = 'sessions.signing_key';

export function createSessionKeyStore(db: IssuerDb): SessionKeyStore {
  const select = db.sqlite.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
  const insert = db.sqlite.prepare('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)');
  return {
    load: () => select.get(SESSION_KEY_SETTING)?.value,
    saveIfAbsent(value) {
      return db.transaction(() => {
        insert.run(SESSION_KEY_SETTING, value);
        return (select.get(SESSION_KEY_SETTING) as { value: string }).value;
      });
    },
  };
}
