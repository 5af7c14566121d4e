// Crypto-core throughput: raw noble vs raw node:crypto vs raw WebCrypto, Mandate's verify() on
// each backend (1 and 64 in flight — the issuer picks its backend from these numbers under
// concurrent load), the cost of a key seen for the first time, and JCS canonicalization.
// Each case runs for DURATION_MS bounded by performance.now(), after a short warm-up. Mandate's
// code is the compiled package (bench/library.ts).
//   npm run bench -- crypto
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexToBytes } from '../wallet/crypto/bytes.ts'; // decodes the RFC 8032 vector; not measured
import type { Ed25519Backend } from '../wallet/index.ts';
import { shippedWallet } from './library.ts';
import { measure } from './measure.ts';

/** The library under test, compiled as shipped (bench/library.ts). */
const { canonicalizeJson, getEd25519Backend, seedSigner, verify } = await shippedWallet();

const DURATION_MS = 1500;
const WARMUP_MS = 300;
const IN_FLIGHT = 64;

/** ops/s of `op` back to back, or with `inFlight` callers each awaiting one op at a time. */
async function opsPerSec(op: () => unknown, inFlight = 1, durationMs = DURATION_MS): Promise<number> {
  return (await measure(op, { durationMs, warmupMs: WARMUP_MS, inFlight })).opsPerSec;
}

const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;

/** A VC 2.0 credential of about 1.5 KB, shaped like Mandate's agent credentials. */
function sampleCredential(): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/security/data-integrity/v2'],
    id: 'urn:uuid:0b5e8d4c-1f2a-4c3b-9d8e-7a6b5c4d3e2f',
    type: ['VerifiableCredential', 'AgentCredential'],
    issuer: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
    validFrom: '2025-01-01T00:00:00Z',
    validUntil: '2099-01-01T00:00:00Z',
    credentialStatus: {
      id: 'https://issuer.example/status/3#94567',
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '94567',
      statusListCredential: 'https://issuer.example/status/3',
    },
    credentialSubject: {
      id: 'did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
      name: 'procurement-agent-7',
      privilegeScopes: ['payments:write', 'calendar:read', 'mail:send', 'files:read', 'crm:update'],
      delegationDepth: 2,
      domains: ['shop.example', 'pay.example', 'calendar.example'],
      limits: { currency: 'EUR', perTransaction: 250, perDay: 1000, ratePerMinute: 30 },
      parent: 'urn:uuid:7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      notes: 'Delegated by the finance team for recurring office-supply orders; é, ü, 日本 included for JCS.',
    },
    proof: {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      created: '2025-01-01T00:00:00Z',
      verificationMethod:
        'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
      proofPurpose: 'assertionMethod',
      proofValue: 'z2YwC8z3ap7yx1nZYCg4L3j3ApHsF8kgPdSb5xoS1VR7vPG3F561B52hYnQF9iseabecm3ijx4K1FBTQsCZahKZme',
    },
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const seed = hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
  // eddsa-jcs-2022 signs SHA-256(proof config) ‖ SHA-256(document): 64 bytes (VC-DI-EdDSA §3.3.4)
  const message = new Uint8Array(64).fill(0x5a);
  const publicKey = ed25519.getPublicKey(seed);
  const signature = ed25519.sign(message, seed);

  const nodePrivate = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const nodePublic = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
    format: 'der',
    type: 'spki',
  });
  const webPublic = await crypto.subtle.importKey('raw', publicKey.slice(), 'Ed25519', false, ['verify']);
  const check = (ok: boolean): void => {
    if (!ok) throw new Error('bench signature did not verify');
  };

  const ops: Record<string, number> = {};
  ops.nobleSign = await opsPerSec(() => ed25519.sign(message, seed));
  ops.nobleVerify = await opsPerSec(() => check(ed25519.verify(signature, message, publicKey, { zip215: false })));
  ops.nodeSign = await opsPerSec(() => nodeSign(null, message, nodePrivate));
  ops.nodeVerify = await opsPerSec(() => check(nodeVerify(null, message, nodePublic, signature)));
  ops.webcryptoVerify1 = await opsPerSec(async () =>
    check(await crypto.subtle.verify('Ed25519', webPublic, signature, message)),
  );
  ops[`webcryptoVerify${IN_FLIGHT}`] = await opsPerSec(
    async () => check(await crypto.subtle.verify('Ed25519', webPublic, signature, message)),
    IN_FLIGHT,
  );

  // Mandate: strict checks + cached key objects in front of the same backends.
  const defaultBackend = await getEd25519Backend();
  ops.mandateVerifyDefault = await opsPerSec(async () => check(await verify(signature, message, publicKey)));
  const backends: Ed25519Backend[] = ['node', 'webcrypto', 'noble'];
  for (const backend of backends) {
    const name = `mandateVerify_${backend}`;
    ops[`${name}_1`] = await opsPerSec(async () => check(await verify(signature, message, publicKey, { backend })));
    if (backend !== 'noble') {
      ops[`${name}_${IN_FLIGHT}`] = await opsPerSec(
        async () => check(await verify(signature, message, publicKey, { backend })),
        IN_FLIGHT,
      );
    }
  }
  const signer = seedSigner(seed);
  ops.mandateSignDefault = await opsPerSec(() => signer.sign(message));

  // A key seen for the first time pays validation (one scalar multiplication) and native import.
  // Keys from seeds 1…KEYS, imported as JWK (fast) to make the inputs.
  const KEYS = 1200;
  const keyCases = Array.from({ length: KEYS }, (_, i) => {
    const s = new Uint8Array(32);
    new DataView(s.buffer).setUint32(0, i + 1);
    const pk = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(s).toString('base64url'), x: '' },
      format: 'jwk',
    });
    const pub = new Uint8Array(Buffer.from(createPublicKey(pk).export({ format: 'jwk' }).x as string, 'base64url'));
    return { pub, sig: new Uint8Array(nodeSign(null, message, pk)) };
  });
  let next = 0;
  const verifyNext = async (): Promise<void> => {
    const c = keyCases[next++ % KEYS]!;
    check(await verify(c.sig, message, c.pub));
  };
  ops.mandateVerifyDefaultColdKey = await opsPerSec(verifyNext, 1, 1000);
  if (next >= KEYS) throw new Error('the cold-key case ran out of fresh keys');
  // A returning key that more recent ones pushed out of the 1,024 native-key entries: it was
  // validated before, so it is only imported again. Every key is seen once first, then all
  // 1,200 cycle (in order, so each is the least recently used when it comes round again).
  while (next < KEYS) await verifyNext();
  ops.mandateVerifyDefaultEvictedKey = await opsPerSec(verifyNext, 1, 1000);

  const credential = sampleCredential();
  const credentialBytes = new TextEncoder().encode(JSON.stringify(credential)).length;
  ops.jcsCanonicalize = await opsPerSec(() => canonicalizeJson(credential));

  return {
    durationMsPerCase: DURATION_MS,
    messageBytes: message.length,
    defaultBackend,
    inFlight: IN_FLIGHT,
    jcs: { credentialBytes },
    opsPerSec: ops,
    ratios: {
      signNativeOverNoble: ratio(ops.nodeSign, ops.nobleSign),
      verifyNativeOverNoble: ratio(ops.nodeVerify, ops.nobleVerify),
      mandateDefaultVerifyOverRawNode: ratio(ops.mandateVerifyDefault, ops.nodeVerify),
      evictedKeyOverColdKey: ratio(ops.mandateVerifyDefaultEvictedKey ?? 0, ops.mandateVerifyDefaultColdKey ?? 1),
      [`webcrypto${IN_FLIGHT}InFlightOverNodeSync`]: ratio(
        ops[`mandateVerify_webcrypto_${IN_FLIGHT}`] ?? 0,
        ops.mandateVerify_node_1 ?? 1,
      ),
    },
  };
}
