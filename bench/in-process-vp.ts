// The in-process baseline the HTTP benches compare with: bench/verify.ts's `mandateVp1` — one
// `verifyPresentation` of a VP + one AgentCredential (2 signatures, did:key, cached resolver, no
// status list, no replay cache, credential cache off) by the compiled library (bench/library.ts).
// A helper module (no `run`), so bench/run.ts skips it.
import { shippedWallet } from './library.ts';
import { measure, type Measure } from './measure.ts';

const TARGET = 'files.example.com';
const CHALLENGE = 'bench-challenge-7f3a9c';
const HOUR = 3_600_000;

/** One VP+1 verification (checked valid), ready to time. */
export async function inProcessVp1(): Promise<() => Promise<void>> {
  const wallet = await shippedWallet();
  const identity = (fill: number) => wallet.didKeyIdentity(wallet.seedSigner(new Uint8Array(32).fill(fill)));
  const platform = identity(0x11);
  const agent = identity(0x21);
  const credential = await wallet.issueAgentCredential({
    issuer: platform,
    agentDid: agent.did,
    privilegeScopes: ['files', 'calendar:read', 'mail:send'],
    delegationDepth: 1,
    domains: [TARGET],
    validUntil: new Date(Date.now() + 24 * HOUR),
  });
  const vp = await wallet.signPresentation({
    holder: agent,
    credentials: [credential],
    challenge: CHALLENGE,
    domain: TARGET,
    lifetimeMs: HOUR,
  });
  const options = {
    trustedIssuers: [platform.did],
    expectedDomain: TARGET,
    expectedChallenge: CHALLENGE,
    resolver: wallet.createCachedResolver(wallet.createResolver({ methods: { key: wallet.resolveDidKey } })),
  };
  return async () => {
    const result = await wallet.verifyPresentation(vp, options);
    if (!result.valid) throw new Error(`bench VP refused: ${result.reason} (${result.message})`);
  };
}

/** `op` back to back for `ms` (after a short warm-up), in this process. */
export function timeInProcess(op: () => Promise<void>, ms: number): Promise<Measure> {
  return measure(op, { durationMs: ms, warmupMs: 100 });
}
