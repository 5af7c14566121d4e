// The Mandate context is what lets JSON-LD processors read our credentials. Mandate's own
// verifier never expands JSON-LD (eddsa-jcs-2022 signs the JSON itself), and neither does
// Digital Bazaar's JCS suite, so this is checked here directly: every reference example
// (docs/examples/) expands in JSON-LD *safe mode* — which refuses any term a context does
// not define — with the VC 2.0 context and the context the package ships, offline.
import { readFileSync } from 'node:fs';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import * as jsonld from 'jsonld';
import { describe, expect, it } from 'vitest';
import { MANDATE_CONTEXT, MANDATE_CONTEXT_URL, VC_V2_CONTEXT } from '../../../wallet/vc/context.ts';
import { EXAMPLES_DIR } from '../../support/protocol-examples.ts';

const CONTEXTS = new Map<string, object>([
  [VC_V2_CONTEXT, credentialsContexts.get(VC_V2_CONTEXT) as object],
  [MANDATE_CONTEXT_URL, MANDATE_CONTEXT],
]);

async function documentLoader(url: string) {
  const document = CONTEXTS.get(url);
  if (document === undefined) throw new Error(`offline test: no document for ${url}`);
  return { contextUrl: null, documentUrl: url, document };
}

const read = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(`${EXAMPLES_DIR}${name}.json`, 'utf8')) as Record<string, unknown>;

const expandSafe = (document: object) => jsonld.expand(document, { documentLoader, safe: true });

describe('the Mandate JSON-LD context', () => {
  it.each(['agentCredential', 'delegatedCredential', 'grant', 'statusList', 'presentation'])(
    '%s expands in safe mode, every Mandate term mapped',
    async (name) => {
      const expanded = JSON.stringify(await expandSafe(read(name)));
      expect(expanded.length).toBeGreaterThan(100);
      if (name === 'agentCredential') {
        for (const term of ['AgentCredential', 'privilegeScopes', 'delegationDepth', 'domains'])
          expect(expanded).toContain(`https://mandate.dev/vocab#${term}`);
      }
      if (name === 'delegatedCredential') expect(expanded).toContain('https://mandate.dev/vocab#parentCredential');
      if (name === 'grant')
        for (const term of ['onBehalfOf', 'consent']) expect(expanded).toContain(`https://mandate.dev/vocab#${term}`);
    },
  );

  it('safe mode bites: a term neither context defines is refused', async () => {
    const credential = read('agentCredential');
    const subject = credential.credentialSubject as Record<string, unknown>;
    await expect(
      expandSafe({ ...credential, credentialSubject: { ...subject, notAMandateTerm: 1 } }),
    ).rejects.toThrow();
  });

  it('is protected: a document cannot redefine one of its terms', async () => {
    const credential = read('agentCredential');
    const redefining = {
      ...credential,
      '@context': [...(credential['@context'] as string[]), { privilegeScopes: 'https://example.com/other' }],
    };
    await expect(expandSafe(redefining)).rejects.toThrow();
  });
});
