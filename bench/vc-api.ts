// What the VC-API's JSON-LD work costs per request (issue #23 §2–§3), in one process:
//   jsonLdRules      the JSON-LD rules check alone (safe-mode expansion over the bundled
//                    contexts, then the related-resource digests) on the 1.6 KB signed credential
//                    a verify request checks, and on the 1.1 KB unsigned one an issue request checks
//   staticRules      the static VC DM 2.0 checks (wallet/vc/conformance.ts) on the same credential
//   verifyRequest    POST /credentials/verify through the issuer's whole app (in-process, no
//                    socket): shape, JSON-LD rules, eddsa-jcs-2022 proof, status entry
//   issueRequest     POST /credentials/issue likewise: rules, status allocation, signature, records
//   rdfcVerifyProof  verifyProof of the same credential secured with eddsa-rdfc-2022, beside
//   jcsVerifyProof   the same with eddsa-jcs-2022
//   rdfcPoisonRefusal  how long eddsa-rdfc-2022 takes to refuse a poison graph (a 40-node blank-node
//                    clique, RDF-CANON §4.8) at its work bound, when signing and when verifying:
//                    the speed half of test/wallet/crypto/eddsa-rdfc-2022.test.ts "the work is bounded"
// Ratios are against raw Ed25519 verifications (node:crypto) measured in the same run, and the
// rules' share of a verify request is reported, because the machine is shared and noisy. The
// issuer runs from its sources through tsx, as `npm start` does.
//   npm run bench -- vc-api
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../issuer/config/index.ts';
import { startIssuer } from '../issuer/server.ts';
import { assertJsonLdConformance } from '../issuer/services/vc-api/jsonld.ts';
import { createProof, type KeyResolver, verifyProof } from '../wallet/crypto/data-integrity.ts';
import { generateSeed, seedSigner, type Signer } from '../wallet/crypto/ed25519.ts';
import { eddsaRdfc2022 } from '../wallet/node.ts';
import { assertConformingCredential } from '../wallet/vc/conformance.ts';
import { didKeyIdentity } from '../wallet/vc/identity.ts';
import { createKeyResolver } from '../wallet/did/verification-method.ts';
import { createResolver } from '../wallet/did/registry.ts';
import { resolveDidKey } from '../wallet/did/key.ts';
import { clique } from '../test/support/poison-graph.ts';
import { measure, round } from './measure.ts';

const DURATION_MS = 2000;
const WARMUP_MS = 500;
const ADMIN_KEY = 'bench-admin-key-0123456789abcdefghijklmnopqrstuvwxyz';

/** A credential of about 1.2 KB that uses the examples context's vocabulary and a related resource. */
function sampleCredential(issuer: string): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
    id: 'urn:uuid:0b5e8d4c-1f2a-4c3b-9d8e-7a6b5c4d3e2f',
    type: ['VerifiableCredential', 'EmployeeCredential'],
    issuer: { id: issuer, name: { '@value': 'Example Corp', '@language': 'en' } },
    name: 'Employee credential',
    validFrom: '2025-01-01T00:00:00Z',
    validUntil: '2099-01-01T00:00:00Z',
    credentialSubject: {
      id: 'did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
      employeeNumber: 'E-4711',
      department: 'Procurement',
      roles: ['buyer', 'approver'],
      limits: { currency: 'EUR', perTransaction: 250, perDay: 1000 },
    },
    relatedResource: [
      {
        id: 'https://www.w3.org/ns/credentials/v2',
        digestSRI: 'sha384-l/HrjlBCNWyAX91hr6LFV2Y3heB5Tcr6IeE4/Tje8YyzYBM8IhqjHWiWpr8+ZbYU',
      },
    ],
  };
}

async function opsPerSec(op: () => unknown): Promise<number> {
  return (await measure(op, { durationMs: DURATION_MS, warmupMs: WARMUP_MS })).opsPerSec;
}

/** Runs `op`, which must fail with the RDFC work-bound refusal; anything else stops the bench. */
async function refusedAtWorkBound(op: () => Promise<unknown>): Promise<void> {
  const outcome = await op().then(
    () => new Error('a poison graph was accepted'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error) || !/exceeded its work bound/.test(outcome.message)) throw outcome;
}

const POISON_NODES = 40;

/** ms per refusal of a POISON_NODES clique, signing and verifying (a forged proof over it). */
async function poisonRefusal(options: {
  signer: Signer;
  verificationMethod: string;
  resolveKey: KeyResolver;
  proofValue: string;
}): Promise<Record<string, number>> {
  const { signer, verificationMethod, resolveKey, proofValue } = options;
  const poison = clique(POISON_NODES);
  const forged = {
    ...poison,
    proof: {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod,
      proofPurpose: 'assertionMethod',
      proofValue,
    },
  };
  const sign = await measure(
    () =>
      refusedAtWorkBound(() =>
        createProof(poison, {
          signer,
          verificationMethod,
          proofPurpose: 'assertionMethod',
          cryptosuite: eddsaRdfc2022,
        }),
      ),
    { durationMs: DURATION_MS, warmupMs: WARMUP_MS },
  );
  const verify = await measure(
    () =>
      refusedAtWorkBound(() =>
        verifyProof(forged, { resolveKey, expectedProofPurpose: 'assertionMethod', cryptosuites: [eddsaRdfc2022] }),
      ),
    { durationMs: DURATION_MS, warmupMs: WARMUP_MS },
  );
  return {
    nodes: POISON_NODES,
    msToRefuseSigning: round(sign.msPerOp, 1),
    msToRefuseVerifying: round(verify.msPerOp, 1),
  };
}

function rawEd25519(): () => boolean {
  const seed = generateSeed();
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  const message = Buffer.alloc(64, 7);
  const signature = nodeSign(null, message, privateKey);
  return () => nodeVerify(null, message, publicKey, signature);
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mandate-bench-vcapi-'));
  const issuer = await startIssuer({
    config: loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DID_METHOD: 'key',
      SERVICE_SQLITE_PATH: join(dir, 'issuer.db'),
      SERVICE_ADMIN_API_KEY: ADMIN_KEY,
      SERVICE_RATE_LIMIT_PER_IP: '10000000',
      SERVICE_RATE_LIMIT_PER_TOKEN: '10000000',
    }),
    port: 0,
  });
  try {
    const holder = didKeyIdentity(seedSigner(generateSeed()));
    const unsigned = sampleCredential(holder.did);
    const resolveKey = createKeyResolver(createResolver({ methods: { key: resolveDidKey } }));
    const options = {
      signer: holder.signer,
      verificationMethod: holder.verificationMethod,
      proofPurpose: 'assertionMethod',
    };
    const jcs = await createProof(unsigned, options);
    const rdfc = await createProof(unsigned, { ...options, cryptosuite: eddsaRdfc2022 });
    const post = (path: string, body: unknown, admin = false) =>
      issuer.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(admin ? { authorization: `Bearer ${ADMIN_KEY}` } : {}) },
        body: JSON.stringify(body),
      });
    // The credential the verify request checks is one this issuer signed, with its status entry.
    const issued = (
      (await (await post('/credentials/issue', { credential: sampleCredential('did:example:x') }, true)).json()) as {
        verifiableCredential: unknown;
      }
    ).verifiableCredential;
    const verifyOnce = async () => {
      const response = await post('/credentials/verify', { verifiableCredential: issued });
      if (response.status !== 200) throw new Error(`verify answered ${response.status}`);
    };
    let n = 0;
    const issueOnce = async () => {
      const response = await post(
        '/credentials/issue',
        { credential: { ...sampleCredential('did:example:x'), id: `urn:uuid:bench-${n++}-${process.pid}` } },
        true,
      );
      if (response.status !== 201) throw new Error(`issue answered ${response.status}`);
    };

    const raw = await opsPerSec(rawEd25519());
    const jsonLdRules = await opsPerSec(() => assertJsonLdConformance(issued as Record<string, unknown>));
    const unsignedInput = { ...sampleCredential('did:example:x'), issuer: issuer.ctx.issuer.did };
    const jsonLdRulesUnsigned = await opsPerSec(() => assertJsonLdConformance(unsignedInput));
    const staticRules = await opsPerSec(() => assertConformingCredential(issued));
    const verifyRequest = await opsPerSec(verifyOnce);
    const issueRequest = await opsPerSec(issueOnce);
    const jcsVerifyProof = await opsPerSec(() =>
      verifyProof(jcs, { resolveKey, expectedProofPurpose: 'assertionMethod' }),
    );
    const rdfcVerifyProof = await opsPerSec(() =>
      verifyProof(rdfc, { resolveKey, expectedProofPurpose: 'assertionMethod', cryptosuites: [eddsaRdfc2022] }),
    );
    const rdfcPoisonRefusal = await poisonRefusal({
      ...options,
      resolveKey,
      proofValue: (rdfc.proof as { proofValue: string }).proofValue,
    });
    return {
      rawEd25519VerifiesPerSec: raw,
      jsonLdRules: {
        opsPerSec: jsonLdRules,
        msPerCheck: round(1000 / jsonLdRules, 3),
        rawVerifiesPerCheck: round(raw / jsonLdRules),
      },
      staticRules: { opsPerSec: staticRules, msPerCheck: round(1000 / staticRules, 4) },
      verifyRequest: {
        opsPerSec: verifyRequest,
        msPerRequest: round(1000 / verifyRequest, 3),
        jsonLdShare: round(verifyRequest / jsonLdRules),
      },
      jsonLdRulesUnsigned: { opsPerSec: jsonLdRulesUnsigned, msPerCheck: round(1000 / jsonLdRulesUnsigned, 3) },
      issueRequest: {
        opsPerSec: issueRequest,
        msPerRequest: round(1000 / issueRequest, 3),
        jsonLdShare: round(issueRequest / jsonLdRulesUnsigned),
      },
      jcsVerifyProof: { opsPerSec: jcsVerifyProof, ratioToRaw: round(jcsVerifyProof / raw) },
      rdfcVerifyProof: {
        opsPerSec: rdfcVerifyProof,
        ratioToRaw: round(rdfcVerifyProof / raw),
        ratioToJcs: round(rdfcVerifyProof / jcsVerifyProof),
      },
      rdfcPoisonRefusal,
    };
  } finally {
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
