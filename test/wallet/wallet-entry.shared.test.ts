// The published entry point exposes the whole isomorphic API, and nothing Node-only: this
// file runs in Chromium too, where importing node:fs would fail.
import { describe, expect, it } from 'vitest';
import * as wallet from '../../wallet/index.ts';

describe('mandate/wallet entry', () => {
  it('exports every layer', () => {
    for (const name of [
      'createProof',
      'verifyProof',
      'createResolver',
      'resolveDidKey',
      'createStatusListClient',
      'createIndexedDbKeyStore',
      'issueAgentCredential',
      'delegate',
      'signPresentation',
      'verifyPresentation',
    ]) {
      expect(typeof (wallet as Record<string, unknown>)[name], name).toBe('function');
    }
    expect(wallet.REASON_CODES).toHaveLength(22);
    expect('createFileKeyStore' in wallet).toBe(false);
  });
});
