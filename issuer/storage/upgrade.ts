/**
 * What a file written by an older issuer lacks besides tables and columns: facts the older code
 * did not record, which this code relies on. SCHEMA and ADDED_COLUMNS give such a file the
 * current shape, with the new columns empty; the steps here fill them in from what the file
 * does hold, mostly its audit log. Each runs once per file: `PRAGMA user_version` counts the
 * steps a file has had (0 for a new file and for one from before this module, where the steps
 * find nothing to do or exactly the rows to fix). openDatabase runs them in its schema
 * transaction, so a file is upgraded whole or not at all.
 *
 * What the data alone cannot settle — status lists and audit records for revocations an older
 * issuer left partial — is completed by the services once the issuer is up
 * (`completeLegacyRevocations`, services/credentials.ts) when `upgradeData` reports a legacy file.
 */
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import type { SqliteDatabase } from './db.ts';

/** The steps below, counted: the `user_version` of a file that has had them all. */
export const DATA_VERSION = 1;

/**
 * `credentials.renewed` (ADDED_COLUMNS) from the CREDENTIAL_RENEWED records; left NULL, revoke and
 * suspend would not follow renewal lines (docs/operations.md §Upgrading).
 */
const BACKFILL_RENEWED = `
  UPDATE credentials SET renewed = EXISTS (
    SELECT 1 FROM audit
    WHERE event = 'CREDENTIAL_RENEWED'
      AND json_extract(data, '$.previousVcId') = credentials.id
      AND json_extract(data, '$.vcId') = credentials.superseded_by
  )
  WHERE renewed IS NULL AND superseded_by IS NOT NULL`;

/**
 * `credentials.suspended_with` (ADDED_COLUMNS) from the newest CREDENTIAL_SUSPENDED record; NULL
 * without one means "cause unknown" (docs/operations.md §Upgrading).
 */
const BACKFILL_SUSPENDED_WITH = `
  UPDATE credentials SET suspended_with = (
    SELECT COALESCE(json_extract(data, '$.with'), credentials.id) FROM audit
    WHERE event = 'CREDENTIAL_SUSPENDED' AND json_extract(data, '$.vcId') = credentials.id
    ORDER BY seq DESC LIMIT 1
  )
  WHERE suspended_at IS NOT NULL AND suspended_with IS NULL`;

/**
 * Onboarding challenges are stored as their SHA-256 (hex) only; older issuers stored them in
 * clear. Hashing those rows removes the clear values from the file and lets an onboarding left
 * at step 1 complete (the answer is compared with the hash).
 */
function hashClearChallenges(sqlite: SqliteDatabase): void {
  const clear = sqlite
    .prepare<[], { id: string; challenge: string }>(
      `SELECT id, challenge FROM onboarding_sessions WHERE challenge NOT GLOB '${'[0-9a-f]'.repeat(64)}'`,
    )
    .all();
  const update = sqlite.prepare('UPDATE onboarding_sessions SET challenge = ? WHERE id = ?');
  for (const { id, challenge } of clear) update.run(bytesToHex(sha256Utf8(challenge)), id);
}

/**
 * Brings the data of an open file up to DATA_VERSION, inside the caller's transaction, and
 * returns the version it found. A file newer than this code is left alone.
 */
export function upgradeData(sqlite: SqliteDatabase): number {
  const found = sqlite.pragma('user_version', { simple: true }) as number;
  if (found >= DATA_VERSION) return found;
  sqlite.exec(BACKFILL_RENEWED);
  sqlite.exec(BACKFILL_SUSPENDED_WITH);
  hashClearChallenges(sqlite);
  sqlite.pragma(`user_version = ${DATA_VERSION}`);
  return found;
}
