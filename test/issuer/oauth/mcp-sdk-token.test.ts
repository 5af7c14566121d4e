// The MCP TypeScript SDK as a token client of the issuer, before any MCP server is involved:
// its authorization-server discovery reads the metadata, and its PrivateKeyJwtProvider gets a
// client_credentials token for an RFC 8707 resource (the SDK sends no DPoP proof, so the
// operator allows Bearer tokens). jose then verifies the token on its own.
import { discoverAuthorizationServerMetadata, fetchToken } from '@modelcontextprotocol/sdk/client/auth.js';
import { PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { generateSeed, getPublicKey, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import { didKeyIdentity } from '../../../wallet/vc/identity.ts';
import { mintToken, onboardSelfAgent, startTestIssuer, type TestIssuer } from '../../support/issuer.ts';
import { RESOURCE } from '../../support/oauth.ts';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
});
afterAll(() => issuer.dispose());

describe('MCP SDK PrivateKeyJwtProvider against the issuer', () => {
  it('gets a token for the resource, and is refused once the credential is revoked', async () => {
    const seed = generateSeed();
    const identity = didKeyIdentity(seedSigner(seed));
    const enrolled = await onboardSelfAgent(
      issuer,
      identity,
      await mintToken(issuer, { requestedDomains: [RESOURCE] }),
    );
    const provider = new PrivateKeyJwtProvider({
      clientId: enrolled.agentDid,
      privateKey: { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64url(getPublicKey(seed)), d: bytesToBase64url(seed) },
      algorithm: 'EdDSA',
      scope: 'files:read',
      expectedIssuer: issuer.url,
    });
    const metadata = await discoverAuthorizationServerMetadata(issuer.url);
    const tokens = await fetchToken(provider, issuer.url, { metadata, resource: new URL(RESOURCE) });
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'files:read' });
    const { payload } = await jwtVerify(
      tokens.access_token,
      createRemoteJWKSet(new URL(`${issuer.url}/.well-known/jwks.json`)),
      {
        issuer: issuer.url,
        audience: RESOURCE,
        typ: 'at+jwt',
      },
    );
    expect(payload).toMatchObject({ sub: enrolled.agentDid, client_id: enrolled.agentDid });

    const vc = encodeURIComponent(enrolled.vcId);
    expect((await issuer.call(`/v1/vcs/${vc}/revoke`, { admin: true, body: { reason: 'gone' } })).status).toBe(200);
    // The SDK rejects; under Vitest its `instanceof Response` check misses, so its message does not
    // carry the body — the audit record shows what the issuer answered.
    await expect(fetchToken(provider, issuer.url, { metadata, resource: new URL(RESOURCE) })).rejects.toThrow();
    const audit = await issuer.call('/v1/audit?event=OAUTH_TOKEN_REFUSED&order=desc&limit=1', { admin: true });
    expect(audit.json.records[0]).toMatchObject({
      agentDid: enrolled.agentDid,
      reason: 'CREDENTIAL_REVOKED',
      data: { error: 'invalid_grant', resource: RESOURCE },
    });
  });

  it('against a default issuer (no Bearer tokens) is refused with DPOP_REQUIRED naming the setting that allows it', async () => {
    const strict = await startTestIssuer();
    try {
      const seed = generateSeed();
      const enrolled = await onboardSelfAgent(
        strict,
        didKeyIdentity(seedSigner(seed)),
        await mintToken(strict, { requestedDomains: [RESOURCE] }),
      );
      const provider = new PrivateKeyJwtProvider({
        clientId: enrolled.agentDid,
        privateKey: { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64url(getPublicKey(seed)), d: bytesToBase64url(seed) },
        algorithm: 'EdDSA',
        expectedIssuer: strict.url,
      });
      const metadata = await discoverAuthorizationServerMetadata(strict.url);
      // What the SDK received, read from the wire (its own message depends on a realm check).
      const answers: unknown[] = [];
      const fetchFn: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        answers.push(await response.clone().json());
        return response;
      };
      await expect(
        fetchToken(provider, strict.url, { metadata, resource: new URL(RESOURCE), fetchFn }),
      ).rejects.toThrow();
      expect(answers).toEqual([
        {
          error: 'invalid_request',
          mandate_reason: 'DPOP_REQUIRED',
          error_description: expect.stringContaining('SERVICE_OAUTH_ALLOW_BEARER=true') as unknown,
        },
      ]);
    } finally {
      await strict.dispose();
    }
  });
});
