// A database file written before a column was added (schema.ts ADDED_COLUMNS) opens, gains the
// column, and keeps its rows: an operator upgrading the issuer keeps the file it had.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteCredentialStore } from '../../issuer/storage/credentials-store.ts';
import { openDatabase, type IssuerDb } from '../../issuer/storage/db.ts';
import { ADDED_COLUMNS, SCHEMA } from '../../issuer/storage/schema.ts';
import { tempDir } from '../support/issuer.ts';

const opened: IssuerDb[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openDatabase on a file from before ADDED_COLUMNS', () => {
  it('adds the missing columns, keeps the rows, and reads them with the defaults', () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir, 'issuer.db');
    // The file as an earlier release left it: the CREATE statements only, and a superseded,
    // suspended credential.
    const old = new Database(path);
    for (const statement of SCHEMA) old.exec(statement);
    old
      .prepare(
        `INSERT INTO credentials (id, type, subject_did, issuer_did, json, valid_from, issued_at, superseded_by, suspended_at)
         VALUES ('urn:uuid:1', 'AgentCredential', 'did:key:z6Mka', 'did:web:issuer.example', '{}', 0, 0, 'urn:uuid:2', 5)`,
      )
      .run();
    old.close();

    const db = openDatabase(path);
    opened.push(db);
    const columns = db.sqlite.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('credentials')").all().map((c) => c.name);
    for (const [table, column] of ADDED_COLUMNS) {
      expect(table).toBe('credentials');
      expect(columns).toContain(column);
    }
    const store = createSqliteCredentialStore(db);
    expect(store.get('urn:uuid:1')).toMatchObject({ supersededBy: 'urn:uuid:2', renewed: false, suspendedAt: 5, suspendedWith: null });
    // Opening again changes nothing (the columns are there now).
    const again = openDatabase(path);
    opened.push(again);
    expect(createSqliteCredentialStore(again).get('urn:uuid:1')).toMatchObject({ renewed: false, suspendedWith: null });
  });
});
