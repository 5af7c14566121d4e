// wallet/crypto/jwt.ts: EdDSA JWTs signed and verified the same way in Node and Chromium, and
// every way a token or a key can be wrong refused with its own code.
import { describe, expect, it } from 'vitest';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey } from '../../../wallet/crypto/ed25519.ts';
import {
  ed25519PublicJwk,
  jwkThumbprint,
  parseEd25519PublicJwk,
  readJwtHeader,
  signEdDsaJwt,
  verifyEdDsaJwt,
} from '../../../wallet/crypto/jwt.ts';
import { encodeBase64url } from '../../../wallet/crypto/multikey.ts';

const b64 = (value: unknown): string => encodeBase64url(utf8ToBytes(JSON.stringify(value))).slice(1);
const code = (c: string) => expect.objectContaining({ code: c });
const NOW = 1_800_000_000; // seconds
const at = new Date(NOW * 1000);

async function keyPair() {
  const seed = generateSeed();
  const jwk = await ed25519PublicJwk(getPublicKey(seed));
  return { seed, jwk };
}

const claims = {
  iss: 'did:web:issuer.example',
  sub: 'did:key:z6MkAgent',
  aud: 'files.example.com',
  iat: NOW,
  exp: NOW + 300,
};

describe('signEdDsaJwt / verifyEdDsaJwt', () => {
  it('round-trips a token: header alg EdDSA, kid = RFC 7638 thumbprint, claims as signed', async () => {
    const { seed, jwk } = await keyPair();
    const token = await signEdDsaJwt(claims, { seed });
    const verified = await verifyEdDsaJwt(token, {
      jwk,
      issuer: claims.iss,
      audience: claims.aud,
      now: at,
      typ: 'JWT',
    });
    expect(verified.header).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: await jwkThumbprint(jwk) });
    expect(verified.claims).toEqual(claims);
    expect(readJwtHeader(token).kid).toBe(jwk.kid);
  });

  it('signs with a private JWK as well, and sets iat when the claims have none', async () => {
    const { seed, jwk } = await keyPair();
    const d = encodeBase64url(seed).slice(1);
    const token = await signEdDsaJwt(
      { sub: 'did:key:z6MkX', exp: NOW + 60 },
      { privateJwk: { ...jwk, d }, kid: 'k1', now: at },
    );
    const verified = await verifyEdDsaJwt(token, {
      jwks: {
        keys: [
          { kty: 'RSA', kid: 'k0' },
          { ...jwk, kid: 'k1' },
        ],
      },
      now: at,
    });
    expect(verified.claims.iat).toBe(NOW);
    expect(verified.header.kid).toBe('k1');
  });

  it('JWT_SIGNATURE_INVALID: another key, or a payload changed after signing', async () => {
    const a = await keyPair();
    const b = await keyPair();
    const token = await signEdDsaJwt(claims, { seed: a.seed });
    await expect(verifyEdDsaJwt(token, { jwk: b.jwk, now: at })).rejects.toEqual(code('JWT_SIGNATURE_INVALID'));
    const [header, , signature] = token.split('.');
    const forged = `${header}.${b64({ ...claims, aud: 'evil.example' })}.${signature}`;
    await expect(verifyEdDsaJwt(forged, { jwk: a.jwk, now: at })).rejects.toEqual(code('JWT_SIGNATURE_INVALID'));
  });

  it('JWT_EXPIRED past exp + tolerance; accepted within the tolerance', async () => {
    const { seed, jwk } = await keyPair();
    const token = await signEdDsaJwt(claims, { seed });
    await expect(verifyEdDsaJwt(token, { jwk, now: (NOW + 330) * 1000 })).resolves.toBeDefined();
    await expect(verifyEdDsaJwt(token, { jwk, now: (NOW + 361) * 1000 })).rejects.toEqual(
      expect.objectContaining({ code: 'JWT_EXPIRED', claim: 'exp' }),
    );
  });

  it('JWT_CLAIM_INVALID: wrong audience or issuer, missing exp, iat or nbf in the future', async () => {
    const { seed, jwk } = await keyPair();
    const token = await signEdDsaJwt(claims, { seed });
    await expect(verifyEdDsaJwt(token, { jwk, now: at, audience: 'other.example' })).rejects.toEqual(
      expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'aud' }),
    );
    await expect(verifyEdDsaJwt(token, { jwk, now: at, issuer: 'did:web:other' })).rejects.toEqual(
      expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'iss' }),
    );
    const noExp = await signEdDsaJwt({ sub: 'x', iat: NOW }, { seed });
    await expect(verifyEdDsaJwt(noExp, { jwk, now: at })).rejects.toEqual(
      expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'exp' }),
    );
    const future = await signEdDsaJwt({ ...claims, iat: NOW + 3600, exp: NOW + 7200 }, { seed });
    await expect(verifyEdDsaJwt(future, { jwk, now: at })).rejects.toEqual(
      expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'iat' }),
    );
    const notYet = await signEdDsaJwt({ ...claims, nbf: NOW + 3600 }, { seed });
    await expect(verifyEdDsaJwt(notYet, { jwk, now: at })).rejects.toEqual(
      expect.objectContaining({ code: 'JWT_CLAIM_INVALID', claim: 'nbf' }),
    );
  });

  it('JWT_ALG_NOT_ALLOWED: "none" and HMAC tokens are refused before any key is used', async () => {
    const { jwk } = await keyPair();
    for (const alg of ['none', 'HS256', 'ES256']) {
      const token = `${b64({ alg, typ: 'JWT' })}.${b64(claims)}.${alg === 'none' ? '' : 'c2ln'}`;
      await expect(verifyEdDsaJwt(token, { jwk, now: at })).rejects.toEqual(code('JWT_ALG_NOT_ALLOWED'));
    }
  });

  it('JWT_MALFORMED: not a string, not three parts, a header that is not JSON, an oversized token; the message never quotes the token', async () => {
    const { jwk } = await keyPair();
    for (const token of [42, '', 'abc', `${b64({ alg: 'EdDSA' })}.e30`, 'eyJub3QganNvbg.e30.c2ln', 'x'.repeat(9000)]) {
      const error = await verifyEdDsaJwt(token, { jwk, now: at }).catch((e: unknown) => e);
      expect(error).toEqual(code('JWT_MALFORMED'));
      if (typeof token === 'string' && token.length > 3) expect((error as Error).message).not.toContain(token);
    }
  });

  it('JWT_KEY_INVALID: a private key as verification key, another curve, a small-order key, a JWK whose d does not match x', async () => {
    const { seed, jwk } = await keyPair();
    const token = await signEdDsaJwt(claims, { seed });
    const d = encodeBase64url(seed).slice(1);
    await expect(verifyEdDsaJwt(token, { jwk: { ...jwk, d }, now: at })).rejects.toEqual(code('JWT_KEY_INVALID'));
    await expect(verifyEdDsaJwt(token, { jwk: { ...jwk, crv: 'X25519' }, now: at })).rejects.toEqual(
      code('JWT_KEY_INVALID'),
    );
    const identity = new Uint8Array(32);
    identity[0] = 1; // y = 1: the neutral element, small order (RFC 8032 §5.1.3)
    expect(() => parseEd25519PublicJwk({ kty: 'OKP', crv: 'Ed25519', x: encodeBase64url(identity).slice(1) })).toThrow(
      expect.objectContaining({ code: 'JWT_KEY_INVALID' }),
    );
    expect(() => parseEd25519PublicJwk({ kty: 'OKP', crv: 'Ed25519', x: `${jwk.x}=` })).toThrow(
      expect.objectContaining({ code: 'JWT_KEY_INVALID' }),
    );
    await expect(verifyEdDsaJwt(token, { now: at })).rejects.toEqual(code('JWT_KEY_INVALID'));
    const other = await keyPair();
    await expect(signEdDsaJwt(claims, { privateJwk: { ...other.jwk, d } })).rejects.toEqual(code('JWT_KEY_INVALID'));
  });

  it("JWT_KEY_NOT_FOUND: no key of the set has the token's kid", async () => {
    const { seed, jwk } = await keyPair();
    const token = await signEdDsaJwt(claims, { seed, kid: 'current' });
    await expect(verifyEdDsaJwt(token, { jwks: { keys: [{ ...jwk, kid: 'previous' }] }, now: at })).rejects.toEqual(
      code('JWT_KEY_NOT_FOUND'),
    );
  });
});
