// The cases bench/browser.ts times, once in Chromium (bundled by Vite into a page, bench/browser/
// page.ts) and once in Node (the compiled package): the same chain, presentation and signed
// requests, verified with the wallet's Ed25519 backend of choice. The wallet is a parameter so
// both halves run the same code over their own copy of the library.
import type * as Wallet from '../../wallet/index.ts';

export const TARGET = 'files.example.com';
const CHALLENGE = 'bench-challenge-5e81';
const HOUR = 3_600_000;
export const BODY = JSON.stringify({ path: '/reports/q3.pdf', mode: 'read', note: 'x'.repeat(120) });

/** What one case measured: verifications and the milliseconds they took. */
export interface Timed {
  ops: number;
  ms: number;
  opsPerSec: number;
}

/** One run of both cases. */
export interface CaseTimes {
  presentation: Timed;
  cachedChain: Timed;
}

/** `count` verifications of `op`, after `warmup` of them; every result is checked by `op`. */
async function timed(op: (i: number) => Promise<void>, count: number, warmup: number): Promise<Timed> {
  for (let i = 0; i < warmup; i++) await op(i);
  const start = performance.now();
  for (let i = warmup; i < warmup + count; i++) await op(i);
  const ms = performance.now() - start;
  return { ops: count, ms: Math.round(ms), opsPerSec: Math.round((count * 1000) / ms) };
}

/** The chain every case uses: an issuer, root → one delegation, the agent at its leaf. Same seeds everywhere. */
export async function benchChain(w: typeof Wallet) {
  const identity = (fill: number): Wallet.SigningIdentity =>
    w.didKeyIdentity(w.seedSigner(new Uint8Array(32).fill(fill)));
  const platform = identity(0x11);
  const parent = identity(0x21);
  const agent = identity(0x22);
  const root = await w.issueAgentCredential({
    issuer: platform,
    agentDid: parent.did,
    privilegeScopes: ['files', 'calendar:read'],
    delegationDepth: 2,
    domains: [TARGET],
    validUntil: new Date(Date.now() + 24 * HOUR),
  });
  const child = await w.delegate(root, { delegator: parent, delegateeDid: agent.did, scopes: ['files:read'] });
  return { platform, agent, chain: [child, root] as Wallet.ChainCredential[] };
}

/**
 * The two cases of bench/signed-request.ts that the browser runs: a presentation over root + one
 * delegation (credential cache off), and a signed POST naming that chain by digest (chain and
 * credentials cached, nonce into a replay cache). Same seeds as the Node half.
 */
export async function benchCases(
  w: typeof Wallet,
  backend: Parameters<typeof Wallet.setEd25519Backend>[0],
  count: number,
): Promise<CaseTimes> {
  w.setEd25519Backend(backend);
  try {
    const { platform, agent, chain } = await benchChain(w);
    const resolver = w.createCachedResolver(w.createResolver({ methods: { key: w.resolveDidKey } }));
    const vp = await w.signPresentation({
      holder: agent,
      credentials: chain,
      challenge: CHALLENGE,
      domain: TARGET,
      lifetimeMs: HOUR,
    });
    const presentation = await timed(
      async () => {
        const result = await w.verifyPresentation(vp, {
          trustedIssuers: [platform.did],
          expectedDomain: TARGET,
          expectedChallenge: CHALLENGE,
          resolver,
          requiredScopes: ['files:read'],
        });
        if (!result.valid) throw new Error(`bench VP refused: ${result.reason} ${result.message}`);
      },
      count,
      Math.ceil(count / 10),
    );
    const signer = w.identityRequestSigner(agent);
    const sign = (i: number, byDigest: boolean) =>
      w.signChainedRequest(
        new Request(`https://${TARGET}/files/${i}`, {
          method: 'POST',
          body: BODY,
          headers: { 'content-type': 'application/json' },
        }),
        signer,
        chain,
        { byDigest },
      );
    const options = {
      trustedIssuers: [platform.did],
      expectedDomain: TARGET,
      resolver,
      requiredScopes: ['files:read'],
      chainCache: w.createChainCache(),
      replayCache: w.createReplayCache(),
      credentialCache: w.createVerifiedCredentialCache(),
    };
    const primed = await w.verifySignedRequest(await sign(-1, false), options);
    if (!primed.valid) throw new Error(`bench request refused: ${primed.reason} ${primed.message}`);
    const warmup = Math.ceil(count / 10);
    const pool: Request[] = [];
    for (let i = 0; i < count + warmup; i++) pool.push(await sign(i, true));
    const cachedChain = await timed(
      async (i) => {
        const result = await w.verifySignedRequest(pool[i] as Request, options);
        if (!result.valid) throw new Error(`bench request refused: ${result.reason} ${result.message}`);
      },
      count,
      warmup,
    );
    return { presentation, cachedChain };
  } finally {
    w.setEd25519Backend('auto');
  }
}
