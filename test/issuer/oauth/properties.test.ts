// Properties of the token endpoint over generated requests: no token ever carries a scope
// outside the effective scopes of the authority it rests on (the agent's credential, or the
// presented chain), and no token's `aud` differs from the requested resource. A request the
// properties forbid is refused with invalid_scope or invalid_target, never answered with less.
import fc from 'fast-check';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { delegate } from '../../../wallet/vc/delegation.ts';
import { signPresentation } from '../../../wallet/vc/presentation.ts';
import { uncovered, within } from '../../../wallet/vc/scopes.ts';
import type { ChainCredential, MandateCredential } from '../../../wallet/vc/types.ts';
import { startTestIssuer, type TestIssuer } from '../../support/issuer.ts';
import {
  agentAssertion,
  ASSERTION_TYPE,
  holderAuth,
  newHolder,
  oauthAgent,
  RESOURCE,
  tokenRequest,
  type OAuthAgent,
} from '../../support/oauth.ts';

const OTHER = 'https://files.example.com/other';
const AGENT_SCOPES = ['files', 'calendar:read'];
const CHAIN_SCOPES = ['files:read', 'calendar:read'];
const UNIVERSE = ['files', 'files:read', 'files:write', 'files:read:public', 'calendar', 'calendar:read', 'mail:send'];
const RESOURCES = [RESOURCE, OTHER, 'https://mail.example.com/mcp'];
const DOMAINS = [RESOURCE, OTHER];

let issuer: TestIssuer;
let agent: OAuthAgent;
let jwks: ReturnType<typeof createRemoteJWKSet>;

beforeAll(async () => {
  issuer = await startTestIssuer({ SERVICE_OAUTH_ALLOW_BEARER: 'true' });
  agent = await oauthAgent(issuer, { requestedScopes: AGENT_SCOPES, requestedDomains: DOMAINS });
  jwks = createRemoteJWKSet(new URL(`${issuer.url}/.well-known/jwks.json`));
});
afterAll(() => issuer.dispose());

const request = fc.record({
  scopes: fc.option(fc.uniqueArray(fc.constantFrom(...UNIVERSE), { minLength: 1, maxLength: 4 }), { nil: undefined }),
  resource: fc.constantFrom(...RESOURCES),
});

async function clientCredentialsForm(scopes: string[] | undefined, resource: string) {
  return {
    grant_type: 'client_credentials',
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await agentAssertion(issuer, agent),
    resource,
    ...(scopes === undefined ? {} : { scope: scopes.join(' ') }),
  };
}

/** The properties, for one answer: a token within `effective` for `resource`, or the right refusal. */
async function holds(
  answer: Awaited<ReturnType<typeof tokenRequest>>,
  scopes: string[] | undefined,
  resource: string,
  effective: string[],
) {
  const allowedTarget = DOMAINS.includes(resource);
  const allowedScopes = scopes === undefined || uncovered(scopes, effective).length === 0;
  if (answer.status !== 200) {
    expect(allowedTarget && allowedScopes).toBe(false);
    expect(answer.json.error).toBe(allowedTarget ? 'invalid_scope' : 'invalid_target');
    return;
  }
  expect(allowedTarget && allowedScopes).toBe(true);
  const { payload } = await jwtVerify(answer.json.access_token as string, jwks, { issuer: issuer.url, typ: 'at+jwt' });
  expect(payload.aud).toBe(resource);
  const granted = (payload.scope as string).split(' ');
  expect(within(granted, effective)).toBe(true);
  if (scopes !== undefined) expect(within(granted, scopes) && within(scopes, granted)).toBe(true);
  expect(answer.json.scope).toBe(payload.scope);
}

describe('token properties', () => {
  it('client_credentials: scope ⊆ the credential’s effective scopes, aud = the requested resource', async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ scopes, resource }) => {
        await holds(
          await tokenRequest(issuer, await clientCredentialsForm(scopes, resource)),
          scopes,
          resource,
          AGENT_SCOPES,
        );
      }),
      { numRuns: 40 },
    );
  });

  it('token exchange: scope ⊆ the chain’s effective scopes, aud = the requested resource', async () => {
    const holder = await newHolder();
    const child = holder.identity;
    const link = await delegate(agent.credential as unknown as ChainCredential, {
      delegator: agent.identity,
      delegateeDid: child.did,
      scopes: CHAIN_SCOPES,
      domains: DOMAINS,
    });
    const root = agent.credential as unknown as MandateCredential;
    await fc.assert(
      fc.asyncProperty(request, async ({ scopes, resource }) => {
        // The presentation names the resource it is for (as a client honestly would).
        const vp = await signPresentation({
          holder: child,
          credentials: [link, root],
          challenge: crypto.randomUUID(),
          domain: resource,
        });
        const answer = await tokenRequest(issuer, {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token_type: 'urn:mandate:params:oauth:token-type:presentation',
          subject_token: bytesToBase64url(utf8ToBytes(JSON.stringify(vp))),
          resource,
          ...(scopes === undefined ? {} : { scope: scopes.join(' ') }),
          ...(await holderAuth(issuer, holder)),
        });
        await holds(answer, scopes, resource, CHAIN_SCOPES);
      }),
      { numRuns: 40 },
    );
  });
});
