// The wire contract (wallet/contract) sits beside wallet/did and wallet/status, not above them,
// so the few grammar constants it repeats are held equal to their sources here.
import { describe, expect, it } from 'vitest';
import { LIST_PURPOSES as ISSUER_LIST_PURPOSES } from '../../issuer/services/status-lists.ts';
import { DID_PATTERN, DidSchema } from '../../wallet/contract/primitives.ts';
import { LIST_PURPOSES, MAX_LIST_STATUS_SIZE } from '../../wallet/contract/status-lists.ts';
import { DID_SYNTAX } from '../../wallet/did/parse.ts';
import { MAX_STATUS_SIZE } from '../../wallet/status/bitstring.ts';

describe('wallet/contract', () => {
  it('validates DIDs with the DID Core §3.1 grammar of wallet/did/parse.ts', () => {
    expect(DID_PATTERN.source).toBe(DID_SYNTAX.source);
    expect(DidSchema.safeParse('did:web:example.com:agents:a%3Ab').success).toBe(true);
    expect(DidSchema.safeParse('did:web:').success).toBe(false);
  });

  it('keeps the status-list purposes and size bound of the issuer and wallet/status', () => {
    expect([...LIST_PURPOSES]).toEqual([...ISSUER_LIST_PURPOSES]);
    expect(MAX_LIST_STATUS_SIZE).toBe(MAX_STATUS_SIZE);
  });
});
