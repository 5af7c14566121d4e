// The wire contract (wallet/contract) sits beside wallet/did and wallet/status, not above them,
// so the few grammar constants it repeats are held equal to their sources here.
import { describe, expect, it } from 'vitest';
import { LIST_PURPOSES as ISSUER_LIST_PURPOSES } from '../../issuer/services/status-lists.ts';
import { generateSeed, getPublicKey } from '../../wallet/crypto/ed25519.ts';
import { AGENT_STATUSES, documentEndpoints, SIGNATURE_DIRECTORY_JSON } from '../../wallet/contract/documents.ts';
import { DID_PATTERN, DidSchema } from '../../wallet/contract/primitives.ts';
import { LIST_PURPOSES, MAX_LIST_STATUS_SIZE } from '../../wallet/contract/status-lists.ts';
import { DID_SYNTAX } from '../../wallet/did/parse.ts';
import { MAX_STATUS_SIZE } from '../../wallet/status/bitstring.ts';
import {
  buildSignatureAgentCard,
  SIGNATURE_DIRECTORY_MEDIA_TYPE,
  SIGNATURE_DIRECTORY_PATH,
} from '../../wallet/http-signatures/directory.ts';

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

  it("keeps the key directory's path and media type, and the card's shape, of wallet/http-signatures", async () => {
    expect(documentEndpoints.signatureDirectory.path).toBe(SIGNATURE_DIRECTORY_PATH);
    expect(SIGNATURE_DIRECTORY_JSON).toBe(SIGNATURE_DIRECTORY_MEDIA_TYPE);
    const schema = documentEndpoints.signatureAgentCard.responses[200].schema;
    for (const status of AGENT_STATUSES) {
      const card = await buildSignatureAgentCard({
        url: 'https://issuer.example/agents/a/signature-agent-card',
        did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        publicKeys: [getPublicKey(generateSeed())],
        contacts: ['mailto:ops@example.com'],
        status,
      });
      expect(schema.parse(card)).toEqual(card);
    }
  });
});
