// The MCP TypeScript SDK as a token client of the issuer, before any MCP server is involved:
// its authorization-server discovery reads the metadata, and its PrivateKeyJwtProvider gets a
// client_credentials token for an RFC 8707 resource (the SDK sends no DPoP proof, so the
// operator allows Bearer tokens). jose then verifies the token on its own.
import { discoverAuthorizationServerMetadata, fetchToken } from '@modelcontextprotocol/sdk/client/auth.js';
import { PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { generateSeed, getPublicKey, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { mintToken, onboardSelfAgent, startTestIssuer, type TestIssuer } from '../support/issuer.ts';
import { RESOURCE } from '../support/oauth.ts';

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
});
