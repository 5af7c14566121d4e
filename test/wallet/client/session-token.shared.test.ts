// verifySessionToken in Node and Chromium, against keys published on the fixture server the way
// the issuer publishes them: fetched once and cached, one refetch for a rotated key (not more
// often than the cooldown), every claim checked, and typed errors for keys that cannot be had.
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { generateSeed, getPublicKey } from '../../../wallet/crypto/ed25519.ts';
import { ed25519PublicJwk, signEdDsaJwt, type JwtClaims } from '../../../wallet/crypto/jwt.ts';
import { verifySessionToken } from '../../../wallet/client/session-token.ts';

const base = inject('fixtureBaseUrl');
const ISSUER = 'did:web:issuer.test';
const AUDIENCE = 'files.example.com';
const code = (c: string) => expect.objectContaining({ code: c });
let counter = 0;

async function publish(path: string, body: unknown, status = 200): Promise<void> {
  await fetch(`${base}/host${path}`, {
    method: 'PUT',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'x-status': String(status) },
  });
}
async function hits(path: string): Promise<number> {
  return ((await (await fetch(`${base}/hits?path=${encodeURIComponent(path)}`)).json()) as { hits: number }).hits;
}

/** A fresh "issuer" under its own path on the fixture server, publishing `jwk`. */
async function fakeIssuer(jwk: unknown, issuer: unknown = ISSUER): Promise<{ url: string; keyPath: string }> {
  const prefix = `/issuer-${Date.now()}-${++counter}`;
  await publish(`${prefix}/v1/sessions/public-key`, jwk);
  await publish(`${prefix}/v1/health`, { ok: true, issuer });
  return { url: base + prefix, keyPath: `${prefix}/v1/sessions/public-key` };
}

async function sessionKey() {
  const seed = generateSeed();
  return { seed, jwk: await ed25519PublicJwk(getPublicKey(seed)) };
}

function claims(overrides: Partial<JwtClaims> = {}): JwtClaims {
  const iat = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    sub: 'did:key:z6MkAgentB',
    aud: AUDIENCE,
    scope: 'files:read files:write',
    vpId: 'urn:uuid:1b4e28ba-2fa1-41d2-883f-0016d3cca427',
    jti: 'j-1',
    iat,
    exp: iat + 300,
    act: { sub: 'did:key:z6MkAgentA' },
    ...overrides,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('verifySessionToken', () => {
  it('fetches the key and the issuer DID once, then verifies from the cache; returns typed claims', async () => {
    const { seed, jwk } = await sessionKey();
    const { url, keyPath } = await fakeIssuer(jwk);
    const token = await signEdDsaJwt(claims(), { seed });
    const expected = {
      iss: ISSUER,
      sub: 'did:key:z6MkAgentB',
      aud: AUDIENCE,
      scope: ['files:read', 'files:write'],
      vpId: 'urn:uuid:1b4e28ba-2fa1-41d2-883f-0016d3cca427',
      jti: 'j-1',
      act: { sub: 'did:key:z6MkAgentA' },
    };
    expect(
      await verifySessionToken(token, { issuerBaseUrl: url, audience: AUDIENCE, allowInsecureHttp: true }),
    ).toMatchObject(expected);
    expect(
      await verifySessionToken(token, { issuerBaseUrl: url, audience: AUDIENCE, allowInsecureHttp: true }),
    ).toMatchObject(expected);
    expect(await hits(keyPath)).toBe(1);
  });

  it('a rotated key: a token with an unknown kid is JWT_KEY_NOT_FOUND within the cooldown, and refetched once after it', async () => {
    const oldKey = await sessionKey();
    const newKey = await sessionKey();
    const { url, keyPath } = await fakeIssuer(oldKey.jwk);
    await verifySessionToken(await signEdDsaJwt(claims(), { seed: oldKey.seed }), {
      issuerBaseUrl: url,
      audience: AUDIENCE,
    });
    await publish(keyPath, newKey.jwk);
    const rotated = await signEdDsaJwt(claims(), { seed: newKey.seed });
    await expect(verifySessionToken(rotated, { issuerBaseUrl: url, audience: AUDIENCE })).rejects.toEqual(
      code('JWT_KEY_NOT_FOUND'),
    );
    expect(await hits(keyPath)).toBe(1);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    await expect(verifySessionToken(rotated, { issuerBaseUrl: url, audience: AUDIENCE })).resolves.toMatchObject({
      sub: 'did:key:z6MkAgentB',
    });
    expect(await hits(keyPath)).toBe(2);
    // Forged kids do not cause more fetches: the cooldown starts again with the refetch.
    const forged = await signEdDsaJwt(claims(), { seed: (await sessionKey()).seed });
    await expect(verifySessionToken(forged, { issuerBaseUrl: url, audience: AUDIENCE })).rejects.toEqual(
      code('JWT_KEY_NOT_FOUND'),
    );
    expect(await hits(keyPath)).toBe(2);
  });

  it("JWT_CLAIM_INVALID for a token without Mandate's claims in their types: bad scope, act, sub, vpId, aud list", async () => {
    const { seed, jwk } = await sessionKey();
    const bad: Array<[string, Partial<JwtClaims>]> = [
      ['scope', { scope: 'files:read FILES' }],
      ['scope', { scope: ['files:read'] as unknown }],
      ['act', { act: { sub: 'not-a-did' } }],
      ['act', { act: { sub: 'did:key:a', act: 'did:key:b' } }],
      ['sub', { sub: 'agent-b' }],
      ['vpId', { vpId: undefined }],
      ['aud', { aud: [AUDIENCE, 'other.example.com'] }],
    ];
    for (const [claim, overrides] of bad) {
      const token = await signEdDsaJwt(claims(overrides), { seed });
      await expect(verifySessionToken(token, { jwk, issuer: ISSUER, audience: AUDIENCE }), claim).rejects.toEqual(
        expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim }),
      );
    }
    let act: Record<string, unknown> = { sub: 'did:key:root' };
    for (let i = 0; i < 20; i++) act = { sub: `did:key:a${i}`, act };
    await expect(
      verifySessionToken(await signEdDsaJwt(claims({ act }), { seed }), { jwk, issuer: ISSUER, audience: AUDIENCE }),
    ).rejects.toEqual(expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'act' }));
  });

  it('a forged kid while the issuer is unreachable leaves the cached key in place, and looks once per cooldown', async () => {
    const { seed, jwk } = await sessionKey();
    const { url, keyPath } = await fakeIssuer(jwk);
    const good = await signEdDsaJwt(claims(), { seed });
    const options = { issuerBaseUrl: url, audience: AUDIENCE };
    await verifySessionToken(good, options);
    await publish(keyPath, { error: { code: 'UNAVAILABLE', message: 'down' } }, 503);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    const forged = await signEdDsaJwt(claims(), { seed: (await sessionKey()).seed });
    await expect(verifySessionToken(forged, options)).rejects.toEqual(code('JWT_KEY_NOT_FOUND'));
    const afterOneLook = await hits(keyPath); // the first fetch, then one look (the transport retries a 503)
    for (let i = 0; i < 4; i++)
      await expect(verifySessionToken(forged, options)).rejects.toEqual(code('JWT_KEY_NOT_FOUND'));
    expect(await hits(keyPath)).toBe(afterOneLook);
    await expect(verifySessionToken(good, options)).resolves.toMatchObject({ iss: ISSUER });
  });

  it('KEY_UNAVAILABLE when the issuer publishes no usable key or DID; the failure is not cached', async () => {
    const { seed, jwk } = await sessionKey();
    const token = await signEdDsaJwt(claims(), { seed });
    const missing = await fakeIssuer(jwk);
    await publish(missing.keyPath, { error: { code: 'NOT_FOUND', message: 'x' } }, 404);
    await expect(verifySessionToken(token, { issuerBaseUrl: missing.url, audience: AUDIENCE })).rejects.toEqual(
      code('KEY_UNAVAILABLE'),
    );
    await publish(missing.keyPath, jwk);
    await expect(verifySessionToken(token, { issuerBaseUrl: missing.url, audience: AUDIENCE })).resolves.toMatchObject({
      iss: ISSUER,
    });
    const privateKey = await fakeIssuer({ ...jwk, d: 'AAAA' });
    await expect(verifySessionToken(token, { issuerBaseUrl: privateKey.url, audience: AUDIENCE })).rejects.toEqual(
      code('KEY_UNAVAILABLE'),
    );
    const noDid = await fakeIssuer(jwk, 42);
    await expect(verifySessionToken(token, { issuerBaseUrl: noDid.url, audience: AUDIENCE })).rejects.toEqual(
      code('KEY_UNAVAILABLE'),
    );
    // With the issuer named, /v1/health is not needed.
    await expect(
      verifySessionToken(token, { issuerBaseUrl: noDid.url, issuer: ISSUER, audience: AUDIENCE }),
    ).resolves.toMatchObject({ iss: ISSUER });
  });

  it('CONFIG_INVALID without exactly one key source, without an audience, or with a key but no issuer', async () => {
    const { seed, jwk } = await sessionKey();
    const token = await signEdDsaJwt(claims(), { seed });
    const options: unknown[] = [
      { audience: AUDIENCE },
      { jwk, jwks: { keys: [jwk] }, issuer: ISSUER, audience: AUDIENCE },
      { jwk, issuer: ISSUER, audience: '' },
      { jwk, audience: AUDIENCE },
      { issuerBaseUrl: 'http://issuer.example.com', audience: AUDIENCE },
    ];
    for (const option of options) {
      await expect(verifySessionToken(token, option as Parameters<typeof verifySessionToken>[1])).rejects.toEqual(
        code('CONFIG_INVALID'),
      );
    }
  });

  it('refuses a malformed token before fetching anything', async () => {
    const { jwk } = await sessionKey();
    const { url, keyPath } = await fakeIssuer(jwk);
    await expect(verifySessionToken('not-a-token', { issuerBaseUrl: url, audience: AUDIENCE })).rejects.toEqual(
      code('JWT_MALFORMED'),
    );
    expect(await hits(keyPath)).toBe(0);
  });
});
