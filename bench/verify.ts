// In-process verifier throughput: Mandate's `verifyPresentation` against the raw cost of its
// Ed25519 signatures and against Digital Bazaar's `vc.verify` on an equivalent presentation.
//
// The library is the compiled package (bench/library.ts), not the sources through tsx.
//
// Cases (each ~DURATION_MS bounded by performance.now(), after a warm-up; one verification at a
// time, awaited, unless noted):
//   raw                  node:crypto Ed25519 verify with one reused KeyObject — the ceiling
//   mandateVp1           VP + 1 AgentCredential (2 signatures), did:key, cached did:key resolver,
//                        no status list, no replay cache, verified-credential cache OFF
//   digitalBazaarVp1     the same shape through Digital Bazaar (bench/digitalbazaar.ts)
//   mandateRootChild     VP + root + 1 delegation (3 signatures), credential cache OFF and ON
//   chainLength          VP + chains of 1…8 credentials (root depth 8), cache OFF, with linear fits
//                        (the first in raw signature times, measured interleaved like the targets)
//   mandateVp1Concurrent 64 verifications in flight (64 callers): does it use >1 core?
//                        (default backend, then the WebCrypto backend, which runs off the main thread)
// Every verification's result is checked: a bench that measured refusals would be worthless.
//
// The target ratios compare each case with the raw rate measured INTERLEAVED with it (slices of
// the case alternate with slices of raw verification, `pairedBench`), so both see the same load:
// on a shared machine the raw rate drifts by ±30% within one run, which a single raw figure
// taken at the start would turn into ratio noise. `raw` / `rawAtEnd` still show that drift.
// `ratios` divides the totals; `ratiosBySliceMedian` takes the median of the 20 slice pairs.
//
//   npm run bench -- verify          (through bench/run.ts)
//   npx tsx bench/verify.ts          (alone; prints the same JSON)
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import type {
  ChainCredential,
  SigningIdentity,
  VerifiablePresentation,
  VerifyPresentationOptions,
} from '../wallet/index.ts';
import { benchDigitalBazaarVp } from './digitalbazaar.ts';
import { shippedWallet } from './library.ts';
import { cpuMsSince, measure, pairedBench as interleaved, round, type Measure, type Paired } from './measure.ts';

/** The library under test, compiled as shipped (bench/library.ts). */
const {
  availableEd25519Backends,
  createCachedResolver,
  createResolver,
  createVerifiedCredentialCache,
  delegate,
  didKeyIdentity,
  getEd25519Backend,
  issueAgentCredential,
  resolveDidKey,
  seedSigner,
  setEd25519Backend,
  signPresentation,
  verifyPresentation,
} = await shippedWallet();

const DURATION_MS = 2000;
const WARMUP_MS = 200;
/** Before the first Mandate case: long enough for V8 to finish optimizing the verify path. */
const GLOBAL_WARMUP_MS = 1500;
const IN_FLIGHT = 64;
const MAX_CHAIN = 8;
const TARGET = 'files.example.com';
const CHALLENGE = 'bench-challenge-7f3a9c';
const HOUR = 3_600_000;
/** The targets: Mandate should reach 70% of the raw signature rate divided by its signatures. */
const TARGET_EFFICIENCY = 0.7;

/** `measure` with this bench's budget; `inFlight` verifications at once for the concurrency cases. */
function bench(op: () => unknown, inFlight = 1): Promise<Measure> {
  return measure(op, { durationMs: DURATION_MS, warmupMs: WARMUP_MS, inFlight });
}

/** Slices per paired measurement; raw slices are a third as long (raw needs fewer ms for the same precision). */
/** `pairedBench` with this bench's timing. */
const pairedBench = (op: () => Promise<void>, rawOp: () => void): Promise<Paired> =>
  interleaved(op, rawOp, { durationMs: DURATION_MS, warmupMs: WARMUP_MS, slices: 20 });

/** Fixed seeds, so runs are comparable; did:key identities as in the interop tests. */
function identity(fill: number): SigningIdentity {
  return didKeyIdentity(seedSigner(new Uint8Array(32).fill(fill)));
}

/** root (issued by `platform` to agents[0], depth MAX_CHAIN) followed by delegations down agents[1…]. */
async function buildChain(platform: SigningIdentity, agents: SigningIdentity[]): Promise<ChainCredential[]> {
  const root = await issueAgentCredential({
    issuer: platform,
    agentDid: (agents[0] as SigningIdentity).did,
    privilegeScopes: ['files', 'calendar:read', 'mail:send'],
    delegationDepth: MAX_CHAIN,
    domains: [TARGET, 'calendar.example.com'],
    validUntil: new Date(Date.now() + 24 * HOUR),
  });
  const chain: ChainCredential[] = [root];
  for (let i = 1; i < agents.length; i++) {
    const parent = chain[chain.length - 1] as ChainCredential;
    chain.push(
      await delegate(parent, {
        delegator: agents[i - 1] as SigningIdentity,
        delegateeDid: (agents[i] as SigningIdentity).did,
        scopes: ['files:read'],
        domains: [TARGET],
      }),
    );
  }
  return chain; // root first
}

/** A VP by the holder of `chain`'s last credential, leaf first; valid for an hour so the run stays inside it. */
function present(holder: SigningIdentity, rootFirst: ChainCredential[]): Promise<VerifiablePresentation> {
  return signPresentation({
    holder,
    credentials: [...rootFirst].reverse(),
    challenge: CHALLENGE,
    domain: TARGET,
    lifetimeMs: HOUR,
  });
}

/** Least-squares fit y = a + b·x, with r². */
function linearFit(xs: number[], ys: number[]): { intercept: number; slope: number; r2: number } {
  const n = xs.length;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  const slope = sxy / sxx;
  return { intercept: my - slope * mx, slope, r2: syy === 0 ? 1 : (sxy * sxy) / (sxx * syy) };
}

export async function run(): Promise<Record<string, unknown>> {
  const backend = await getEd25519Backend();
  const platform = identity(0x11);
  const agents = Array.from({ length: MAX_CHAIN }, (_, i) => identity(0x21 + i));
  const fullChain = await buildChain(platform, agents);
  const resolver = createCachedResolver(createResolver({ methods: { key: resolveDidKey } }));
  const options: VerifyPresentationOptions = {
    trustedIssuers: [platform.did],
    expectedDomain: TARGET,
    expectedChallenge: CHALLENGE,
    resolver,
  };

  const verifier = (vp: VerifiablePresentation, extra: Partial<VerifyPresentationOptions> = {}) => {
    const opts = { ...options, ...extra };
    return async (): Promise<void> => {
      const result = await verifyPresentation(vp, opts);
      if (!result.valid) throw new Error(`bench VP refused: ${result.reason} (${result.message})`);
    };
  };

  // raw: what one Ed25519 verification costs on this machine, key already imported.
  const rawSigner = seedSigner(new Uint8Array(32).fill(0x5a));
  const message = new Uint8Array(64).fill(0x42); // eddsa-jcs-2022 signs 64 bytes (VC-DI-EdDSA §3.3.4)
  const signature = await rawSigner.sign(message);
  const keyObject = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), rawSigner.publicKey]),
    format: 'der',
    type: 'spki',
  });
  const rawOp = (): void => {
    if (!nodeVerify(null, message, keyObject, signature)) throw new Error('raw signature did not verify');
  };
  const loadBefore = loadavg();
  const raw = await bench(rawOp);

  const vp1 = await present(agents[0] as SigningIdentity, fullChain.slice(0, 1));
  const vpFull = await present(agents[MAX_CHAIN - 1] as SigningIdentity, fullChain);
  const warmups = [
    verifier(vp1),
    verifier(vpFull),
    verifier(vp1, { credentialCache: createVerifiedCredentialCache() }),
  ];
  for (let until = performance.now() + GLOBAL_WARMUP_MS; performance.now() < until;) {
    for (const warm of warmups) await warm();
  }
  const vp1Paired = await pairedBench(verifier(vp1), rawOp);
  const mandateVp1 = vp1Paired.m;
  const dbCpu = process.cpuUsage();
  const dbStart = performance.now();
  const digitalBazaarVp1 = await benchDigitalBazaarVp(DURATION_MS);
  const dbCores = cpuMsSince(dbCpu) / (performance.now() - dbStart); // includes DB's own warm-up

  const vp2 = await present(agents[1] as SigningIdentity, fullChain.slice(0, 2));
  const rootChildUncachedPaired = await pairedBench(verifier(vp2), rawOp);
  const rootChildUncached = rootChildUncachedPaired.m;
  const rootChildCachedPaired = await pairedBench(
    verifier(vp2, { credentialCache: createVerifiedCredentialCache() }),
    rawOp,
  );
  const rootChildCached = rootChildCachedPaired.m;

  const chainLength: Record<
    string,
    {
      msPerVerification: number;
      cpuMsPerVerification: number;
      verificationsPerSec: number;
      signatures: number;
      costInRawSignatures: number;
    }
  > = {};
  const lengths: number[] = [];
  const costs: number[] = [];
  const cpuCosts: number[] = [];
  const signatureCosts: number[] = [];
  for (let n = 1; n <= MAX_CHAIN; n++) {
    const vp = await present(agents[n - 1] as SigningIdentity, fullChain.slice(0, n));
    const paired = await pairedBench(verifier(vp), rawOp);
    const m = paired.m;
    const cpuMs = round(1000 / m.opsPerCpuSec, 4);
    // The cost in raw signature times, slice by slice: free of the machine's drift, which made
    // the plain millisecond fit wander between runs.
    const inSignatures = round(1 / paired.medianRatio, 3);
    chainLength[String(n)] = {
      msPerVerification: m.msPerOp,
      cpuMsPerVerification: cpuMs,
      verificationsPerSec: m.opsPerSec,
      signatures: n + 1,
      costInRawSignatures: inSignatures,
    };
    lengths.push(n);
    costs.push(m.msPerOp);
    cpuCosts.push(cpuMs);
    signatureCosts.push(inSignatures);
  }
  // Pure signature cost would grow as the signature count, 2 → 9; the fit shows what else grows.
  const fitOf = (ys: number[]) => {
    const { slope, intercept, r2 } = linearFit(lengths, ys);
    const last = ys[MAX_CHAIN - 1] as number;
    const first = ys[0] as number;
    return {
      perExtraCredential: round(slope, 4),
      intercept: round(intercept, 4),
      r2: round(r2, 4),
      cost8_over_cost1: round(last / first),
    };
  };

  const mandateVp1Concurrent = await bench(verifier(vp1), IN_FLIGHT);
  // node:crypto verifies synchronously on the main thread; WebCrypto in Node runs on the libuv
  // pool, so with many verifications in flight it is the backend that can use a second core.
  let webcrypto: { sequential: Measure; concurrent: Measure } | undefined;
  if (backend !== 'webcrypto' && (await availableEd25519Backends()).includes('webcrypto')) {
    setEd25519Backend('webcrypto');
    try {
      webcrypto = { sequential: await bench(verifier(vp1)), concurrent: await bench(verifier(vp1), IN_FLIGHT) };
    } finally {
      setEd25519Backend('auto');
    }
  }
  const rawEnd = await bench(rawOp); // again at the end: drift shows a busy (shared) machine
  const loadAfter = loadavg();

  const cases: Record<string, Measure> = {
    raw,
    rawAtEnd: rawEnd,
    mandateVp1,
    mandateRootChild_cacheOff: rootChildUncached,
    mandateRootChild_cacheOn: rootChildCached,
    [`mandateVp1Concurrent${IN_FLIGHT}`]: mandateVp1Concurrent,
    ...(webcrypto && {
      mandateVp1_webcrypto: webcrypto.sequential,
      [`mandateVp1Concurrent${IN_FLIGHT}_webcrypto`]: webcrypto.concurrent,
    }),
  };
  const each = (pick: (m: Measure) => number) =>
    Object.fromEntries(Object.entries(cases).map(([name, m]) => [name, pick(m)]));
  /** The targets, from wall-clock rates or from CPU-time rates, each against its interleaved raw rate. */
  const ratios = (rate: (m: Measure) => number, digitalBazaarRate: number) => {
    const vsTarget = ({ m, raw: pairedRaw }: Paired, signatures: number) =>
      round(rate(m) / ((TARGET_EFFICIENCY * rate(pairedRaw)) / signatures));
    return {
      vp1_vs_target: vsTarget(vp1Paired, 2),
      vp1_vs_digitalBazaar: round(rate(mandateVp1) / digitalBazaarRate),
      // Digital Bazaar's share of the two-signature limit: the VP+1 target (0.7) was set where
      // it reaches ~0.36, so a lower share here means this machine's JavaScript is slower
      // against its OpenSSL than where the target was calibrated.
      digitalBazaarVp1_vs_limit: round(digitalBazaarRate / (rate(vp1Paired.raw) / 2)),
      rootChild_uncached_vs_target: vsTarget(rootChildUncachedPaired, 3),
      rootChild_cached_vs_target: vsTarget(rootChildCachedPaired, 1),
      [`concurrent${IN_FLIGHT}_vs_sequential`]: round(rate(mandateVp1Concurrent) / rate(mandateVp1)),
    };
  };
  const rawMsPerSig = 1000 / raw.opsPerSec;
  const pairedRawMs = ({ raw: pairedRaw }: Paired) => 1000 / pairedRaw.opsPerSec;
  return {
    durationMsPerCase: DURATION_MS,
    library: 'dist/bench-lib (tsc, as shipped)',
    ed25519Backend: backend,
    loadAverage1m: { before: round(loadBefore[0] ?? 0), after: round(loadAfter[0] ?? 0) },
    opsPerSec: { ...each((m) => m.opsPerSec), digitalBazaarVp1: Math.round(digitalBazaarVp1.opsPerSec) },
    msPerVerification: each((m) => m.msPerOp),
    /** Raw Ed25519 verifications per second measured interleaved with each case (what its ratios use). */
    rawPairedOpsPerSec: {
      mandateVp1: vp1Paired.raw.opsPerSec,
      mandateRootChild_cacheOff: rootChildUncachedPaired.raw.opsPerSec,
      mandateRootChild_cacheOn: rootChildCachedPaired.raw.opsPerSec,
    },
    // Time not spent in Ed25519: each verification minus its signatures at the interleaved raw rate.
    overheadMsPerVerification: {
      mandateVp1: round(mandateVp1.msPerOp - 2 * pairedRawMs(vp1Paired), 4),
      mandateRootChild_cacheOff: round(rootChildUncached.msPerOp - 3 * pairedRawMs(rootChildUncachedPaired), 4),
      mandateRootChild_cacheOn: round(rootChildCached.msPerOp - pairedRawMs(rootChildCachedPaired), 4),
    },
    coresUsed: each((m) => m.coresUsed),
    chainLength: {
      byLength: chainLength,
      /** In raw signature times (interleaved): an extra credential costs one signature plus its share of the rest. */
      fitInRawSignatures: { ...fitOf(signatureCosts), signatures9_over_2: 4.5 },
      fitMs: { ...fitOf(costs), rawSignatureMs: round(rawMsPerSig, 4) },
      fitCpuMs: { ...fitOf(cpuCosts), rawSignatureCpuMs: round(1000 / raw.opsPerCpuSec, 4) },
    },
    ratios: ratios((m) => m.opsPerSec, digitalBazaarVp1.opsPerSec),
    // The targets again, from the median of the per-slice ratios (see `Paired.medianRatio`).
    ratiosBySliceMedian: {
      vp1_vs_target: round(vp1Paired.medianRatio / (TARGET_EFFICIENCY / 2)),
      rootChild_uncached_vs_target: round(rootChildUncachedPaired.medianRatio / (TARGET_EFFICIENCY / 3)),
      rootChild_cached_vs_target: round(rootChildCachedPaired.medianRatio / TARGET_EFFICIENCY),
    },
    // The same from CPU time: on a shared machine other processes take the core at random
    // moments; CPU time counts only what our verifications used (DB's includes its warm-up).
    ratiosByCpuTime: ratios((m) => m.opsPerCpuSec, digitalBazaarVp1.opsPerSec / dbCores),
  };
}

// Run alone: `npx tsx bench/verify.ts`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
