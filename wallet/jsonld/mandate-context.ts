/**
 * The Mandate JSON-LD context document, shipped in the package (never fetched by Mandate's own
 * verifier: eddsa-jcs-2022 signs the JSON itself) and served by the issuer at
 * `/contexts/mandate/v1` for JSON-LD processors. Every term Mandate adds to VC 2.0 is
 * defined here, `@protected`, so safe-mode JSON-LD processors (e.g. Digital Bazaar's
 * `vc.verify`) expand our credentials without dropping or redefining a term. It lives in the
 * JSON-LD layer because the bundled document loader serves it; wallet/vc/context.ts re-exports it.
 */
export const MANDATE_CONTEXT_URL = 'https://mandate.dev/contexts/v1';

const vocab = 'https://mandate.dev/vocab#';

export const MANDATE_CONTEXT = {
  '@context': {
    '@version': 1.1,
    '@protected': true,
    AgentCredential: `${vocab}AgentCredential`,
    DelegatedAgentCredential: `${vocab}DelegatedAgentCredential`,
    DelegationGrantCredential: `${vocab}DelegationGrantCredential`,
    UserConsent: `${vocab}UserConsent`,
    privilegeScopes: { '@id': `${vocab}privilegeScopes`, '@container': '@set' },
    delegationDepth: {
      '@id': `${vocab}delegationDepth`,
      '@type': 'http://www.w3.org/2001/XMLSchema#nonNegativeInteger',
    },
    domains: { '@id': `${vocab}domains`, '@container': '@set' },
    parentCredential: {
      '@id': `${vocab}parentCredential`,
      '@context': {
        '@protected': true,
        digestMultibase: {
          '@id': 'https://w3id.org/security#digestMultibase',
          '@type': 'https://w3id.org/security#multibase',
        },
      },
    },
    onBehalfOf: { '@id': `${vocab}onBehalfOf`, '@type': '@id' },
    consent: { '@id': `${vocab}consent`, '@type': '@json' },
  },
} as const;
