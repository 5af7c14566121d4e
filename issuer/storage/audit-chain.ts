/**
 * The audit chain's link hash, in the form the stores place links with. A record's hash is the
 * hex SHA-256 of the JCS (RFC 8785) form of all its fields but `hash`; of those, only `prevHash`
 * and `seq` depend on where in the chain the record lands. JCS writes an object's members in
 * key order (RFC 8785 §3.2.3), so the preimage is always
 *
 *   head + prevHash + mid + seq + tail
 *
 * with `head` = `{"actor":…,"agentDid":…,"at":…,"data":…,"event":…,"id":…,"prevHash":"`,
 * `mid` = `","reason":…,"seq":` and `tail` = `,"vpId":…}` fixed by the record's other fields.
 * A store that knows the head of the chain only when it writes (PostgreSQL's append function,
 * under the writer lock) finishes the hash there from these three texts: the chain is the same
 * one whoever computes it, and every verifier recomputes it from the fields (auditRecordHash).
 */
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import { canonicalizeJson } from '../../wallet/crypto/jcs.ts';
import type { AuditHead, AuditRow } from './audit-store.ts';

/** prev_hash of the first record: hex SHA-256 of "mandate:issuer:audit:genesis:v1". */
export const AUDIT_GENESIS_HASH = bytesToHex(sha256Utf8('mandate:issuer:audit:genesis:v1'));

/** A record before it has a place in the chain: every field but `seq`, `prevHash` and `hash`. */
export type AuditEntry = Omit<AuditRow, 'seq' | 'prevHash' | 'hash'>;

/** The texts of an entry's hash preimage around its `prevHash` and its `seq`. */
export interface LinkSegments {
  head: string;
  mid: string;
  tail: string;
}

export function linkSegments(entry: AuditEntry): LinkSegments {
  // The members before "prevHash", in JCS order, without the closing brace.
  const before = canonicalizeJson({
    actor: entry.actor,
    agentDid: entry.agentDid,
    at: entry.at,
    data: entry.data,
    event: entry.event,
    id: entry.id,
  });
  return {
    head: `${before.slice(0, -1)},"prevHash":"`,
    mid: `","reason":${canonicalizeJson(entry.reason)},"seq":`,
    tail: `,"vpId":${canonicalizeJson(entry.vpId)}}`,
  };
}

/** The hash of the link with `segments` at `seq` after `prevHash` (a positive integer: JCS writes it in decimal). */
export function linkHash({ head, mid, tail }: LinkSegments, prevHash: string, seq: number): string {
  return bytesToHex(sha256Utf8(`${head}${prevHash}${mid}${seq}${tail}`));
}

/** The hash a record must carry: hex SHA-256 of the JCS of every field but `hash`. */
export function auditRecordHash(row: Omit<AuditRow, 'hash'>): string {
  return linkHash(linkSegments(row), row.prevHash, row.seq);
}

/** `entries` as consecutive links after `head` (undefined: the empty chain). */
export function linkAfter(head: AuditHead | undefined, entries: AuditEntry[]): AuditRow[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? AUDIT_GENESIS_HASH;
  return entries.map((entry) => {
    seq += 1;
    const hash = linkHash(linkSegments(entry), prevHash, seq);
    const row = { ...entry, seq, prevHash, hash };
    prevHash = hash;
    return row;
  });
}
