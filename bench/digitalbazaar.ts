// Digital Bazaar baseline for the verifier benchmark: full presentation verification with
// @digitalbazaar/vc (`vc.verify`, through test/support/digitalbazaar.ts) of one eddsa-jcs-2022 VP
// holding one eddsa-jcs-2022 credential — two Ed25519 signatures, both did:key, resolved by the
// did:key driver on every run (DB caches nothing between calls), challenge and domain checked.
//
//   npx tsx -e "import('./bench/digitalbazaar.ts').then(async m => console.log(await m.benchDigitalBazaarVp(3000)))"
import { dbIssue, dbKeyPairFromSeed, dbSignPresentation, dbVerifyPresentation } from '../test/support/digitalbazaar.ts';
import { VC_V2_CONTEXT as VC_V2 } from '../wallet/vc/context.ts';
import { measure } from './measure.ts';

const CHALLENGE = 'bench-challenge-7f3a9c';
const DOMAIN = 'https://verifier.example';

async function buildPresentation(): Promise<object> {
  const issuer = await dbKeyPairFromSeed(new Uint8Array(32).fill(0x11));
  const agent = await dbKeyPairFromSeed(new Uint8Array(32).fill(0x22));
  const credential = await dbIssue(
    {
      '@context': [VC_V2],
      id: 'urn:uuid:0b5e8d4c-1f2a-4c3b-9d8e-7a6b5c4d3e2f',
      type: ['VerifiableCredential', 'AgentCredential'],
      issuer: issuer.controller,
      validFrom: '2025-01-01T00:00:00Z',
      validUntil: '2099-01-01T00:00:00Z',
      credentialSubject: {
        id: agent.controller,
        privilegeScopes: ['payments:write', 'calendar:read'],
        delegationDepth: 2,
        domains: ['shop.example'],
      },
    },
    issuer,
  );
  return dbSignPresentation(
    {
      '@context': [VC_V2],
      type: ['VerifiablePresentation'],
      holder: agent.controller,
      verifiableCredential: [credential],
    },
    agent,
    { challenge: CHALLENGE, domain: DOMAIN },
  );
}

async function verifyOnce(vp: object): Promise<void> {
  const result = await dbVerifyPresentation(vp, { challenge: CHALLENGE, domain: DOMAIN });
  if (!result.verified) throw new Error(`Digital Bazaar did not verify the bench VP: ${result.error?.message}`);
}

/** Runs DB's full VP verification back to back for `durationMs`; returns completed ops/s. */
export async function benchDigitalBazaarVp(durationMs: number): Promise<{ opsPerSec: number }> {
  if (!(durationMs > 0)) throw new RangeError('durationMs must be positive');
  const vp = await buildPresentation();
  // Warm up (JIT, module-level caches) for ~10% of the budget, at most 500 ms.
  const { opsPerSec } = await measure(() => verifyOnce(vp), { durationMs, warmupMs: Math.min(500, durationMs / 10) });
  return { opsPerSec };
}
