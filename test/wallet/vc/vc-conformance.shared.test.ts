// VC DM 2.0 conformance of generic credentials (wallet/vc/conformance.ts): each structural MUST
// the issuer's VC-API relies on, provoked by a credential that breaks only that rule.
import { describe, expect, it } from 'vitest';
import {
  assertConformingCredential,
  assertConformingCredentialV1,
  credentialDataModel,
} from '../../../wallet/vc/conformance.ts';
import { VerificationError } from '../../../wallet/vc/reasons.ts';

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
    expect(
      problem(
        credential({
          id: 'urn:uuid:0b5f2e57-9c3b-4b6e-8f1e-3b8d7f1c2a10',
          issuer: { id: 'https://issuer.example', name: 'Example' },
        }),
      ),
    ).toBeUndefined();
    expect(
      problem(
        credential({
          type: 'VerifiableCredential',
          credentialSubject: [{ name: 'a' }, { id: 'did:example:b', name: 'b' }],
        }),
      ),
    ).toBeUndefined();
    expect(problem(credential({ credentialStatus: statusEntry }))).toBeUndefined();
    expect(
      problem(credential({ credentialStatus: [statusEntry, { type: 'ExampleStatus', anything: 1 }] })),
    ).toBeUndefined();
    expect(
      problem(
        credential({
          credentialSchema: { id: 'https://example.com/schema.json', type: 'JsonSchema' },
          evidence: [{ type: ['Evidence'] }],
          termsOfUse: { type: 'Policy' },
          refreshService: { type: 'Refresh', url: 'x' },
        }),
      ),
    ).toBeUndefined();
  });

  it.each([
    ['not an object', ['VerifiableCredential'], /JSON object/],
    ['@context missing', credential({ '@context': undefined }), /@context/],
    ['@context a string', credential({ '@context': V2 }), /@context/],
    [
      '@context v1 first (§4.3)',
      credential({ '@context': ['https://www.w3.org/2018/credentials/v1', V2] }),
      /@context/,
    ],
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
    [
      'credentialSubject.id not a URL (§4.8)',
      credential({ credentialSubject: { id: 'alice', role: 'x' } }),
      /credentialSubject.id must be a URL/,
    ],
    [
      'validFrom date-only (§4.9)',
      credential({ validFrom: '2024-01-01' }),
      /validFrom must be an XML Schema dateTimeStamp/,
    ],
    ['validFrom without a zone (§4.9)', credential({ validFrom: '2024-01-01T00:00:00' }), /validFrom/],
    ['validUntil "tomorrow" (§4.9)', credential({ validUntil: 'tomorrow' }), /validUntil must be/],
    [
      'validUntil before validFrom (§4.9)',
      credential({ validFrom: '2030-01-01T00:00:00Z', validUntil: '2029-01-01T00:00:00Z' }),
      /validUntil is before validFrom/,
    ],
    [
      'credentialStatus without type (§4.10)',
      credential({ credentialStatus: { id: 'https://example.com/s#1' } }),
      /credentialStatus.type/,
    ],
    [
      'credentialStatus id not a URL (§4.10)',
      credential({ credentialStatus: { type: 'ExampleStatus', id: 'one' } }),
      /credentialStatus.id must be a URL/,
    ],
    [
      'credentialStatus a string (§4.10)',
      credential({ credentialStatus: 'revoked?' }),
      /credentialStatus must be an object/,
    ],
    [
      'BitstringStatusListEntry without its list (BSL §2.1)',
      credential({ credentialStatus: { ...statusEntry, statusListCredential: undefined } }),
      /credentialStatus: statusListCredential/,
    ],
    [
      'BitstringStatusListEntry id = list URL (BSL §2.1)',
      credential({ credentialStatus: { ...statusEntry, id: statusEntry.statusListCredential } }),
      /credentialStatus: the entry id/,
    ],
    [
      'credentialSchema without id (§4.11)',
      credential({ credentialSchema: { type: 'JsonSchema' } }),
      /credentialSchema.id must be a URL/,
    ],
    [
      'credentialSchema without type (§4.11)',
      credential({ credentialSchema: { id: 'https://example.com/s.json' } }),
      /credentialSchema.type/,
    ],
    [
      'termsOfUse without type (§5.5)',
      credential({ termsOfUse: [{ id: 'https://example.com/tou' }] }),
      /termsOfUse.type/,
    ],
    ['evidence without type (§5.6)', credential({ evidence: { id: 'https://example.com/e' } }), /evidence.type/],
    ['refreshService without type (§5.4)', credential({ refreshService: {} }), /refreshService.type/],
    [
      '"id": null, which JSON-LD would read as no id (§4)',
      credential({ id: null }),
      /^id is null: a member that is present must have a value/,
    ],
    ['"issuer": null (§4.7)', credential({ issuer: null }), /^issuer is null/],
    ['"validUntil": null (§4.9)', credential({ validUntil: null }), /^validUntil is null/],
    ['"issuer": {"id": null} (§4.7)', credential({ issuer: { id: null } }), /^issuer must be a URL, got null/],
    ['name a number (§4.6)', credential({ name: 42 }), /^name must be a string or a language value object/],
    [
      'name a value object with another member (§11.1)',
      credential({ name: { '@value': 'A', '@language': 'en', url: 'x' } }),
      /^name is a language value object with a member other than @value, @language and @direction: "url"/,
    ],
    [
      'description a value object without @value (§11.1)',
      credential({ description: { '@language': 'en' } }),
      /^description must be a string or a language value object/,
    ],
    [
      'issuer.description with a bad @direction (§11.1)',
      credential({ issuer: { id: 'did:example:issuer', description: { '@value': 'A', '@direction': 'up' } } }),
      /^issuer\.description\["@direction"\] must be "ltr" or "rtl"/,
    ],
    [
      'issuer.name with a bad @language (§11.1)',
      credential({ issuer: { id: 'did:example:issuer', name: { '@value': 'A', '@language': 'en us' } } }),
      /^issuer\.name\["@language"\] must be a BCP 47 language tag/,
    ],
    [
      'relatedResource a string (§5.3)',
      credential({ relatedResource: ['https://example.com/a'] }),
      /^relatedResource must be an object or an array of objects/,
    ],
    [
      'relatedResource without id (§5.3)',
      credential({ relatedResource: [{ digestSRI: 'sha256-AAAA' }] }),
      /^relatedResource\.id must be a URL/,
    ],
    [
      'relatedResource ids repeated (§5.3)',
      credential({
        relatedResource: [
          { id: 'https://example.com/a', digestSRI: 'sha256-AAAA' },
          { id: 'https://example.com/a', digestSRI: 'sha256-BBBB' },
        ],
      }),
      /appears twice/,
    ],
    [
      'relatedResource without a digest (§5.3)',
      credential({ relatedResource: { id: 'https://example.com/a' } }),
      /needs a digestSRI or a digestMultibase/,
    ],
    [
      'relatedResource digestSRI of an unknown hash (§5.3)',
      credential({ relatedResource: { id: 'https://example.com/a', digestSRI: 'md5-AAAA' } }),
      /digestSRI must be an SRI hash expression/,
    ],
    [
      'relatedResource digestMultibase not multibase (§5.3)',
      credential({ relatedResource: { id: 'https://example.com/a', digestMultibase: 'f00ba4' } }),
      /digestMultibase must be multibase text/,
    ],
  ])('refuses %s', (_name, value, message) => {
    expect(problem(value)).toMatch(message);
  });

  it('accepts names and descriptions as strings, value objects and lists of them, and well-formed related resources', () => {
    expect(
      problem(
        credential({ name: 'Example', description: { '@value': 'Beispiel', '@language': 'de', '@direction': 'ltr' } }),
      ),
    ).toBeUndefined();
    expect(
      problem(
        credential({
          issuer: {
            id: 'did:example:issuer',
            name: [
              { '@value': 'Dog', '@language': 'en' },
              { '@value': 'Chien', '@language': 'fr-CA' },
            ],
          },
        }),
      ),
    ).toBeUndefined();
    expect(
      problem(
        credential({
          relatedResource: {
            id: V2,
            digestSRI: 'sha384-l/HrjlBCNWyAX91hr6LFV2Y3heB5Tcr6IeE4/Tje8YyzYBM8IhqjHWiWpr8+ZbYU',
            mediaType: 'application/ld+json',
          },
        }),
      ),
    ).toBeUndefined();
  });
});

describe('assertConformingCredentialV1 (VC DM 1.1 §4, verified for other implementations)', () => {
  const v1 = (extra: Record<string, unknown> = {}) => ({
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/security/data-integrity/v2'],
    type: ['VerifiableCredential'],
    issuer: 'did:example:issuer',
    issuanceDate: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:subject' },
    ...extra,
  });
  const v1Problem = (value: unknown) => {
    try {
      assertConformingCredentialV1(value);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('accepts a 1.1 credential, and tells the data models apart by their first context', () => {
    expect(v1Problem(v1())).toBeUndefined();
    expect(
      v1Problem(
        v1({
          expirationDate: '2030-01-01T00:00:00Z',
          credentialStatus: { id: 'https://example.com/s#1', type: 'ExampleStatus' },
        }),
      ),
    ).toBeUndefined();
    expect(credentialDataModel(v1())).toBe(1);
    expect(credentialDataModel(credential())).toBe(2);
    expect(credentialDataModel({ '@context': ['https://example.com'] })).toBeUndefined();
  });

  it.each([
    ['the v2 context first', v1({ '@context': [V2] }), /VC 1\.1 @context/],
    ['no issuanceDate (1.1 §4.6)', v1({ issuanceDate: undefined }), /issuanceDate is required/],
    ['an expirationDate that is no dateTime', v1({ expirationDate: 'soon' }), /expirationDate must be/],
    [
      'a status entry without id (1.1 §4.9)',
      v1({ credentialStatus: { type: 'ExampleStatus' } }),
      /credentialStatus\.id must be a URL/,
    ],
    ['"issuanceDate": null', v1({ issuanceDate: null }), /issuanceDate is null/],
    ['an empty subject', v1({ credentialSubject: {} }), /credentialSubject/],
  ])('refuses %s', (_name, value, message) => {
    expect(v1Problem(value)).toMatch(message);
  });
});
