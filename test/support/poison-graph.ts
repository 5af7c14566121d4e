// A poison graph for RDF canonicalization (RDF-CANON §4.8, "Issues of Security"): the input that
// makes RDFC-1.0 do the most work, used by test/wallet/crypto/eddsa-rdfc-2022.test.ts (the work bound
// refuses it) and bench/vc-api.ts (how long that refusal takes).

/** A credential of `n` blank nodes, each linked to every other: all indistinguishable. */
export function clique(n: number): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
    type: ['VerifiableCredential'],
    issuer: 'did:example:issuer',
    credentialSubject: {
      id: 'did:example:subject',
      knows: Array.from({ length: n }, (_, i) => ({
        '@id': `_:b${i}`,
        knows: Array.from({ length: n }, (_, j) => j)
          .filter((j) => j !== i)
          .map((j) => ({ '@id': `_:b${j}` })),
      })),
    },
  };
}
