// A database file written before a column was added (schema.ts ADDED_COLUMNS) opens, gains the
// column, and keeps its rows: an operator upgrading the issuer keeps the file it had. What the
// older code did not record is filled in once (upgrade.ts).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStatusListStore } from '../../../../issuer/storage/status-lists-store.ts';
import { createSqliteCredentialStore } from '../../../../issuer/storage/credentials-store.ts';
import { openDatabase, type IssuerDb } from '../../../../issuer/storage/db.ts';
import { ADDED_COLUMNS, SCHEMA } from '../../../../issuer/storage/schema.ts';
import { bytesToHex } from '../../../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../../../wallet/crypto/hash.ts';
import { tempDir } from '../../../support/issuer.ts';

const opened: IssuerDb[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A file with the CREATE statements only, as an issuer before ADDED_COLUMNS and upgrade.ts left it. */
function olderFile(): { path: string; old: Database.Database } {
  const dir = tempDir();
  dirs.push(dir);
  const path = join(dir, 'issuer.db');
  const old = new Database(path);
  for (const statement of SCHEMA) old.exec(statement);
  return { path, old };
}

describe('openDatabase on a file from before ADDED_COLUMNS', () => {
  it('adds the missing columns, keeps the rows, and reads them with the defaults', () => {
    // The file as an earlier release left it: the CREATE statements only, and a superseded,
    // suspended credential.
    const { path, old } = olderFile();
    old
      .prepare(
        `INSERT INTO credentials (id, type, subject_did, issuer_did, json, valid_from, issued_at, superseded_by, suspended_at)
         VALUES ('urn:uuid:1', 'AgentCredential', 'did:key:z6Mka', 'did:web:issuer.example', '{}', 0, 0, 'urn:uuid:2', 5)`,
      )
      .run();
    old
      .prepare(
        `INSERT INTO status_lists (id, purpose, length, bitstring, allocated, created_at, updated_at) VALUES ('revocation-1', 'revocation', 8, x'00', x'00', 0, 0)`,
      )
      .run();
    old.close();

    const db = openDatabase(path);
    opened.push(db);
    for (const [table, column] of ADDED_COLUMNS) {
      const columns = db.sqlite
        .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
        .all(table)
        .map((c) => c.name);
      expect(columns, table).toContain(column);
    }
    // A list made before statusSize existed reads as 1-bit entries without messages.
    expect(createSqliteStatusListStore(db).get('revocation-1')).toMatchObject({ statusSize: 1, statusMessages: null });
    const store = createSqliteCredentialStore(db);
    expect(store.get('urn:uuid:1')).toMatchObject({
      supersededBy: 'urn:uuid:2',
      renewed: false,
      suspendedAt: 5,
      suspendedWith: null,
    });
    // Opening again changes nothing (the columns are there now).
    const again = openDatabase(path);
    opened.push(again);
    expect(createSqliteCredentialStore(again).get('urn:uuid:1')).toMatchObject({ renewed: false, suspendedWith: null });
  });
});

describe('openDatabase on a file whose data an older issuer wrote (upgrade.ts)', () => {
  it('fills in renewals, suspension causes and hashed challenges from what the file holds, once', () => {
    const { path, old } = olderFile();
    const credential = old.prepare(
      `INSERT INTO credentials (id, type, subject_did, issuer_did, json, valid_from, issued_at, superseded_by, suspended_at)
       VALUES (?, 'AgentCredential', 'did:key:z6Mka', 'did:web:issuer.example', '{}', 0, 0, ?, ?)`,
    );
    credential.run('urn:uuid:renewed', 'urn:uuid:renewal', null);
    credential.run('urn:uuid:replaced', 'urn:uuid:replacement', null);
    credential.run('urn:uuid:cascaded', null, 5);
    credential.run('urn:uuid:by-name', null, 6);
    credential.run('urn:uuid:unrecorded', null, 7);
    let seq = 0;
    const audit = old.prepare(
      `INSERT INTO audit (seq, id, at, event, actor, data, prev_hash, hash) VALUES (?, ?, 0, ?, 'admin', ?, '', '')`,
    );
    const record = (event: string, data: object) => audit.run(++seq, `a${seq}`, event, JSON.stringify(data));
    record('CREDENTIAL_RENEWED', { vcId: 'urn:uuid:renewal', previousVcId: 'urn:uuid:renewed' });
    record('CREDENTIAL_SUSPENDED', { vcId: 'urn:uuid:cascaded', with: 'urn:uuid:successor' });
    record('CREDENTIAL_SUSPENDED', { vcId: 'urn:uuid:by-name', with: 'urn:uuid:successor' });
    record('CREDENTIAL_REINSTATED', { vcId: 'urn:uuid:by-name', with: 'urn:uuid:successor' });
    record('CREDENTIAL_SUSPENDED', { vcId: 'urn:uuid:by-name' }); // the newest record decides
    old
      .prepare(
        `INSERT INTO enrollment_tokens (id, token_hash, requested_scopes, max_delegation_depth, requested_domains, credential_ttl_seconds, created_at, expires_at, created_by)
      VALUES ('t1', 'h', '[]', 0, '[]', 60, 0, 1, 'admin')`,
      )
      .run();
    const session = old.prepare(
      `INSERT INTO onboarding_sessions (id, token_id, custody, challenge, created_at, expires_at) VALUES (?, 't1', 'server', ?, 0, 1)`,
    );
    const hashed = 'a'.repeat(64);
    session.run('clear', 'challenge-in-clear');
    session.run('hashed', hashed);
    old.close();

    const db = openDatabase(path);
    opened.push(db);
    expect(db.upgradedFrom).toBe(0);
    const store = createSqliteCredentialStore(db);
    expect(store.get('urn:uuid:renewed')?.renewed).toBe(true);
    expect(store.get('urn:uuid:replaced')?.renewed).toBe(false);
    expect(store.get('urn:uuid:cascaded')?.suspendedWith).toBe('urn:uuid:successor');
    expect(store.get('urn:uuid:by-name')?.suspendedWith).toBe('urn:uuid:by-name');
    expect(store.get('urn:uuid:unrecorded')?.suspendedWith).toBeNull(); // cause unknown
    const challenges = Object.fromEntries(
      db.sqlite
        .prepare<[], { id: string; challenge: string }>('SELECT id, challenge FROM onboarding_sessions')
        .all()
        .map((r) => [r.id, r.challenge]),
    );
    expect(challenges).toEqual({ clear: bytesToHex(sha256Utf8('challenge-in-clear')), hashed });
    db.close();

    // Once: a current file is left alone, even where its data would match a step.
    const again = openDatabase(path);
    opened.push(again);
    expect(again.upgradedFrom).toBeUndefined();
    again.sqlite.prepare("UPDATE onboarding_sessions SET challenge = 'x' WHERE id = 'clear'").run();
    again.close();
    const third = openDatabase(path);
    opened.push(third);
    expect(
      third.sqlite
        .prepare<[], { challenge: string }>("SELECT challenge FROM onboarding_sessions WHERE id = 'clear'")
        .get()?.challenge,
    ).toBe('x');
  });
});
