// docs/examples/ are the protocol's reference examples. They must be exactly what the code
// produces today, and the example presentation must verify — with a status list served from
// the example file — at the documented time.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createResolver } from '../../wallet/did/registry.ts';
import { resolveDidKey } from '../../wallet/did/key.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import { createStatusListClient } from '../../wallet/status/client.ts';
import { verifyPresentation } from '../../wallet/vc/verify.ts';
import {
  EXAMPLE_CHALLENGE,
  EXAMPLE_NOW,
  EXAMPLE_STATUS_URL,
  EXAMPLE_TARGET,
  EXAMPLES_DIR,
  buildProtocolExamples,
} from '../support/protocol-examples.ts';

const read = (name: string): unknown => JSON.parse(readFileSync(`${EXAMPLES_DIR}${name}.json`, 'utf8'));

describe('docs/examples', () => {
  it('are exactly what the code signs today (run `npm run docs:examples` after a deliberate change)', async () => {
    const built = await buildProtocolExamples();
    for (const [name, value] of Object.entries(built)) expect(read(name), name).toEqual(value);
  });

  it('verify: the example presentation is accepted with the documented effective scopes', async () => {
    const ids = read('identities') as Record<string, string>;
    const resolver = createResolver({ methods: { key: resolveDidKey } });
    const statusList = readFileSync(`${EXAMPLES_DIR}statusList.json`);
    const statusLists = createStatusListClient({
      resolveKey: createKeyResolver(resolver),
      fetch: async (url) =>
        url === EXAMPLE_STATUS_URL
          ? new Response(statusList, { headers: { 'content-type': 'application/json' } })
          : new Response('', { status: 404 }),
      now: () => EXAMPLE_NOW.getTime(),
    });
    const result = await verifyPresentation(read('presentation'), {
      trustedIssuers: [ids.issuer as string],
      trustedGrantIssuers: [ids.provider as string],
      expectedDomain: EXAMPLE_TARGET,
      expectedChallenge: EXAMPLE_CHALLENGE,
      requiredScopes: ['files:read'],
      resolver,
      statusLists,
      now: EXAMPLE_NOW,
    });
    expect(result).toMatchObject({
      valid: true,
      agentDid: ids.subAgent,
      privilegeScopes: ['files:read', 'files:write'],
      effectiveScopes: ['files:read'],
    });
  });
});
