// VC DM 2.0 conformance of generic credentials (wallet/vc/conformance.ts): each structural MUST
// the issuer's VC-API relies on, provoked by a credential that breaks only that rule.
import { describe, expect, it } from 'vitest';
import { assertConformingCredential } from '../../wallet/vc/conformance.ts';
import { VerificationError } from '../../wallet/vc/reasons.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';

function credential(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '@context': [V2, 'https://example.com/contexts/employee/v1', { '@vocab': 'https://example.com/vocab#' }],
    id: 'https://example.com/credentials/3732',
    type: ['VerifiableCredential', 'EmployeeCredential'],
    issuer: 'did:example:issuer',
    validFrom: '2026-01-01T00:00:00Z',
    validUntil: '2027-01-01T00:00:00+02:00',
    credentialSubject: { id: 'did:example:subject', role: 'auditor' },
    ...extra,
  };
}

const statusEntry = {
  id: 'https://example.com/status/3#94567',
  type: 'BitstringStatusListEntry',
  statusPurpose: 'revocation',
  statusListIndex: '94567',
  statusListCredential: 'https://example.com/status/3',
};

function problem(value: unknown): string | undefined {
  try {
    assertConformingCredential(value);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(VerificationError);
    expect((error as VerificationError).code).toBe('MALFORMED');
    return (error as Error).message;
  }
}

describe('assertConformingCredential (VC DM 2.0 §4)', () => {
  it('accepts conforming credentials, in the forms VC DM 2.0 allows', () => {
    expect(problem(credential())).toBeUndefined();
    expect(problem(credential({ id: undefined, validFrom: undefined, validUntil: undefined }))).toBeUndefined();
    expect(problem(credential({ id: 'urn:uuid:0b5f2e57-9c3b-4b6e-8f1e-3b8d7f1c2a10', issuer: { id: 'https://issuer.example', name: 'Example' } }))).toBeUndefined();
    expect(problem(credential({ type: 'VerifiableCredential', credentialSubject: [{ name: 'a' }, { id: 'did:example:b', name: 'b' }] }))).toBeUndefined();
    expect(problem(credential({ credentialStatus: statusEntry }))).toBeUndefined();
    expect(problem(credential({ credentialStatus: [statusEntry, { type: 'ExampleStatus', anything: 1 }] }))).toBeUndefined();
    expect(problem(credential({ credentialSchema: { id: 'https://example.com/schema.json', type: 'JsonSchema' }, evidence: [{ type: ['Evidence'] }], termsOfUse: { type: 'Policy' }, refreshService: { type: 'Refresh', url: 'x' } }))).toBeUndefined();
  });

  it.each([
    ['not an object', ['VerifiableCredential'], /JSON object/],
    ['@context missing', credential({ '@context': undefined }), /@context/],
    ['@context a string', credential({ '@context': V2 }), /@context/],
    ['@context v1 first (§4.3)', credential({ '@context': ['https://www.w3.org/2018/credentials/v1', V2] }), /@context/],
    ['@context entry 42 (§4.3)', credential({ '@context': [V2, 42] }), /@context entry/],
    ['@context entry not a URL (§4.3)', credential({ '@context': [V2, 'employee'] }), /@context entry/],
    ['id not a URL (§4.4)', credential({ id: 'not a url' }), /^id must be a URL/],
    ['id a number (§4.4)', credential({ id: 3732 }), /^id must be a URL/],
    ['type without VerifiableCredential (§4.5)', credential({ type: ['EmployeeCredential'] }), /VerifiableCredential/],
    ['type an empty array (§4.5)', credential({ type: [] }), /type/],
    ['type with a non-string (§4.5)', credential({ type: ['VerifiableCredential', 7] }), /type/],
    ['issuer missing (§4.7)', credential({ issuer: undefined }), /^issuer must be a URL/],
    ['issuer not a URL (§4.7)', credential({ issuer: 'ACME Corp' }), /^issuer must be a URL/],
    ['issuer object without id (§4.7)', credential({ issuer: { name: 'ACME' } }), /^issuer must be a URL/],
    ['credentialSubject missing (§4.8)', credential({ credentialSubject: undefined }), /credentialSubject/],
    ['credentialSubject empty (§4.8)', credential({ credentialSubject: {} }), /credentialSubject/],
    ['credentialSubject an empty array (§4.8)', credential({ credentialSubject: [] }), /credentialSubject/],
    ['credentialSubject.id not a URL (§4.8)', credential({ credentialSubject: { id: 'alice', role: 'x' } }), /credentialSubject.id must be a URL/],
    ['validFrom date-only (§4.9)', credential({ validFrom: '2024-01-01' }), /validFrom must be an XML Schema dateTimeStamp/],
    ['validFrom without a zone (§4.9)', credential({ validFrom: '2024-01-01T00:00:00' }), /validFrom/],
    ['validUntil "tomorrow" (§4.9)', credential({ validUntil: 'tomorrow' }), /validUntil must be/],
    ['validUntil before validFrom (§4.9)', credential({ validFrom: '2030-01-01T00:00:00Z', validUntil: '2029-01-01T00:00:00Z' }), /validUntil is before validFrom/],
    ['credentialStatus without type (§4.10)', credential({ credentialStatus: { id: 'https://example.com/s#1' } }), /credentialStatus.type/],
    ['credentialStatus id not a URL (§4.10)', credential({ credentialStatus: { type: 'ExampleStatus', id: 'one' } }), /credentialStatus.id must be a URL/],
    ['credentialStatus a string (§4.10)', credential({ credentialStatus: 'revoked?' }), /credentialStatus must be an object/],
    ['BitstringStatusListEntry without its list (BSL §2.1)', credential({ credentialStatus: { ...statusEntry, statusListCredential: undefined } }), /credentialStatus: statusListCredential/],
    ['BitstringStatusListEntry id = list URL (BSL §2.1)', credential({ credentialStatus: { ...statusEntry, id: statusEntry.statusListCredential } }), /credentialStatus: the entry id/],
    ['credentialSchema without id (§4.11)', credential({ credentialSchema: { type: 'JsonSchema' } }), /credentialSchema.id must be a URL/],
    ['credentialSchema without type (§4.11)', credential({ credentialSchema: { id: 'https://example.com/s.json' } }), /credentialSchema.type/],
    ['termsOfUse without type (§5.5)', credential({ termsOfUse: [{ id: 'https://example.com/tou' }] }), /termsOfUse.type/],
    ['evidence without type (§5.6)', credential({ evidence: { id: 'https://example.com/e' } }), /evidence.type/],
    ['refreshService without type (§5.4)', credential({ refreshService: {} }), /refreshService.type/],
  ])('refuses %s', (_name, value, message) => {
    expect(problem(value)).toMatch(message);
  });
});
