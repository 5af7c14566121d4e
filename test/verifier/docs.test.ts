// docs/verifier.md promises a status for every reason code; this keeps that table true: every
// one of the 22 codes has a row, and each "check → status" in it is what denialStatus answers.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REASON_CODES, type ReasonCode } from '../../wallet/vc/reasons.ts';
import type { CheckName } from '../../wallet/vc/verify.ts';
import { denialStatus } from '../../verifier-worker/request.ts';

const doc = readFileSync(new URL('../../docs/verifier.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('## Status codes'), doc.indexOf('## Errors thrown'));
const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map(([, code, cell]) => ({
  code: code as ReasonCode,
  cell: cell as string,
}));

describe('docs/verifier.md §Status codes', () => {
  it('has one row per reason code, in the order of REASON_CODES', () => {
    expect(rows.map((r) => r.code)).toEqual([...REASON_CODES]);
  });

  it('states for each failing check the status denialStatus gives', () => {
    for (const { code, cell } of rows) {
      const pairs = [...cell.matchAll(/([a-z]+) → (\d{3})/g)];
      expect(pairs.length, code).toBeGreaterThan(0);
      for (const [, check, status] of pairs)
        expect(denialStatus(code, check as CheckName), `${code} ${check}`).toBe(Number(status));
    }
  });
});
