// The issuer's token endpoint under concurrent load (autocannon, 32 connections), against two
// baselines measured in the same run: raw Ed25519 verifications/s (node:crypto, one reused key,
// in this process) and POST /v1/vp/verify (a presentation with one credential) on the same issuer.
//   clientSecret     client_credentials, client_secret_basic (a server-custody agent's own secret)
//   privateKeyJwt    client_credentials, private_key_jwt (a fresh assertion per request: jti is single use)
//   tokenExchange    RFC 8693, a fresh Mandate presentation per request (each is accepted once), the
//                    holder authenticated by private_key_jwt (what binds a Bearer exchange to it)
// Each token is an EdDSA-signed RFC 9068 JWT, recorded for introspection and audited. The issuer
// runs in a child process (bench/http.ts serve, node:crypto backend), Bearer tokens allowed.
//
//   npm run bench -- oauth
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { SignJWT, importJWK, type CryptoKey } from 'jose';
import { bytesToBase64url } from '../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey } from '../wallet/crypto/ed25519.ts';
import { signPresentation } from '../wallet/vc/presentation.ts';
import type { AgentCredential } from '../wallet/vc/types.ts';
import type { SigningIdentity } from '../wallet/vc/identity.ts';
import {
  api,
  benchPosts,
  benchVpVerify,
  enrollAgent,
  mintTokens,
  presentations,
  startChild,
  stopChild,
  TARGET,
  type Run,
  type Stock,
} from './http.ts';
import { round } from './measure.ts';

const RESOURCE = 'https://files.example.com/mcp';
const SECONDS = Number(process.env.BENCH_OAUTH_SECONDS ?? 6);
/** Request bodies signed in advance per case: more than a run consumes (7 s at 2,500/s is 17,500). */
const STOCK = Number(process.env.BENCH_OAUTH_STOCK ?? 30_000);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** node:crypto Ed25519 verifications per second for `ms`, one reused key object. */
function rawVerifiesPerSec(ms = 1000): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const message = Buffer.from('mandate bench: a token-sized signing input '.repeat(8));
  const signature = sign(null, message, privateKey);
  let count = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) for (let i = 0; i < 100; i++, count++) verify(null, message, publicKey, signature);
  return count / (ms / 1000);
}

async function serverAgentSecret(base: string): Promise<{ did: string; secret: string }> {
  const [token] = await mintTokens(base, 1, [RESOURCE]);
  const start = await api(base, '/v1/onboard', { token, custody: 'server' });
  const done = await api(base, '/v1/onboard/verify', {
    challengeId: start.json.challengeId,
    challenge: start.json.challenge,
  });
  const did = done.json.agentDid as string;
  const issued = await api(base, `/v1/agents/${encodeURIComponent(did)}/client-secret`, {}, true);
  if (issued.status !== 201) throw new Error(`client secret: ${issued.status}`);
  return { did, secret: issued.json.clientSecret as string };
}

async function signingKey(seed: Uint8Array): Promise<CryptoKey> {
  const jwk = { kty: 'OKP', crv: 'Ed25519', x: bytesToBase64url(getPublicKey(seed)), d: bytesToBase64url(seed) };
  return (await importJWK(jwk, 'EdDSA')) as CryptoKey;
}

/** An RFC 7523 client assertion by `agent` (single use: a fresh jti). */
function clientAssertion(base: string, agent: SigningIdentity, key: CryptoKey, iat: number): Promise<string> {
  return new SignJWT({ jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: 'EdDSA', kid: agent.verificationMethod })
    .setIssuer(agent.did)
    .setSubject(agent.did)
    .setAudience(base)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 240)
    .sign(key);
}

async function assertions(base: string, agent: SigningIdentity, seed: Uint8Array, count: number): Promise<string[]> {
  const key = await signingKey(seed);
  const bodies: string[] = [];
  const iat = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i++) {
    const assertion = await clientAssertion(base, agent, key, iat);
    bodies.push(
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: agent.did,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
        resource: RESOURCE,
      }).toString(),
    );
  }
  return bodies;
}

/** Bearer exchanges: the holder authenticates as itself (docs/oauth.md §Binding), one assertion per body. */
async function exchanges(
  base: string,
  holder: { agent: SigningIdentity; seed: Uint8Array; credential: AgentCredential },
  count: number,
): Promise<string[]> {
  const { agent, credential } = holder;
  const key = await signingKey(holder.seed);
  const iat = Math.floor(Date.now() / 1000);
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const vp = await signPresentation({
      holder: agent,
      credentials: [credential],
      challenge: `x-${i}`,
      domain: RESOURCE,
    });
    bodies.push(
      new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: bytesToBase64url(utf8ToBytes(JSON.stringify(vp))),
        subject_token_type: 'urn:mandate:params:oauth:token-type:presentation',
        resource: RESOURCE,
        client_id: agent.did,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await clientAssertion(base, agent, key, iat),
      }).toString(),
    );
  }
  return bodies;
}

const repeated = (body: string): Stock => ({ bodies: [body], next: 0, repeat: true });

function ratios(run: Run, vpVerify: Run, raw: number) {
  return {
    ...run,
    vsVpVerify: round(run.requestsPerSec / vpVerify.requestsPerSec, 2),
    vsRawEd25519: round(run.requestsPerSec / raw, 3),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const child = await startChild('node');
  try {
    const base = child.url;
    const rawBefore = rawVerifiesPerSec();
    const seed = generateSeed();
    const { agent, credential } = await enrollAgent(base, seed, [RESOURCE, TARGET]);
    const server = await serverAgentSecret(base);
    const basic = `Basic ${Buffer.from(`${server.did}:${server.secret}`).toString('base64')}`;
    const vpStock: Stock = { bodies: await presentations(agent, credential, STOCK), next: 0 };
    const jwtStock: Stock = { bodies: await assertions(base, agent, seed, STOCK), next: 0 };
    const exchangeStock: Stock = { bodies: await exchanges(base, { agent, seed, credential }, STOCK), next: 0 };
    const secretStock = repeated(
      new URLSearchParams({ grant_type: 'client_credentials', resource: RESOURCE }).toString(),
    );
    await benchVpVerify(base, vpStock, 1); // warm-up
    const vpVerify = await benchVpVerify(base, vpStock, SECONDS);
    const clientSecret = await benchPosts(
      base,
      '/oauth/token',
      { ...FORM, authorization: basic },
      secretStock,
      SECONDS,
    );
    const privateKeyJwt = await benchPosts(base, '/oauth/token', FORM, jwtStock, SECONDS);
    const tokenExchange = await benchPosts(base, '/oauth/token', FORM, exchangeStock, SECONDS);
    const raw = (rawBefore + rawVerifiesPerSec()) / 2;
    return {
      connections: 32,
      secondsPerCase: SECONDS,
      rawEd25519VerifiesPerSec: Math.round(raw),
      vpVerify: { ...vpVerify, vsRawEd25519: round(vpVerify.requestsPerSec / raw, 3) },
      clientSecret: ratios(clientSecret, vpVerify, raw),
      privateKeyJwt: ratios(privateKeyJwt, vpVerify, raw),
      tokenExchange: ratios(tokenExchange, vpVerify, raw),
    };
  } finally {
    await stopChild(child);
  }
}
