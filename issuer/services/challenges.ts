/**
 * User challenges (`/v1/challenges`): a service provider asks for a single-use nonce, the user
 * signs it, the issuer checks the signature against the user DID's `authentication` keys and
 * keeps what was signed as consent evidence (docs/protocol.md §Consent evidence).
 *
 * Answer forms:
 * - `signature`: Ed25519 over the UTF-8 bytes of the challenge, base58btc multibase ("z…") or
 *   hex, by a key in the user DID's `authentication` relationship (DID Core §5.3.1); the key
 *   may be named with `verificationMethod`, otherwise each authentication key is tried.
 * - `proof`: a Data Integrity object signed by the user with proofPurpose `authentication` and
 *   this challenge: a `UserConsent` (its `user` = the user DID; what the user approved is then
 *   part of the evidence) or a DID-Auth `VerifiablePresentation` (its `holder` = the user DID).
 *
 * Single use: any answer that gets past input validation (the 400s) consumes the challenge,
 * whatever the outcome (one guess per challenge), unless the challenge expired meanwhile. The
 * consuming UPDATE is conditional, so of two concurrent answers exactly one is judged.
 */
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { hexToBytes, randomBytes, utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { verifyProof } from '../../wallet/crypto/data-integrity.ts';
import { verify } from '../../wallet/crypto/ed25519.ts';
import { isMandateError, MandateError } from '../../wallet/crypto/errors.ts';
import { assertSafeJson } from '../../wallet/crypto/json-safe.ts';
import { type JsonObject } from '../../wallet/crypto/json-value.ts';
import { decodeBase58btc } from '../../wallet/crypto/multikey.ts';
import { didOf } from '../../wallet/did/parse.ts';
import { absoluteDidUrl } from '../../wallet/did/verification-method.ts';
import { parseScopes } from '../../wallet/vc/scopes.ts';
import { clipText } from '../audit.ts';
import type { IssuerDeps } from '../deps.ts';
import { refuse } from '../refusal.ts';
import { controllerKeyResolver } from './controller-keys.ts';
import { requireDid } from './dids.ts';

/** What answering a challenge uses of the issuer's dependencies. */
export type ChallengeDeps = Pick<IssuerDeps, 'stores' | 'resolver' | 'audit' | 'now'>;

export const CHALLENGE_TTL_MS = 5 * 60_000;
/** A user DID with more authentication keys than this is not tried key by key. */
const MAX_KEYS_TRIED = 8;
/**
 * Largest signed answer (`proof`, in canonical JSON bytes). It is kept as consent evidence for
 * good, and anyone may answer a challenge for their own DID: a UserConsent is under 1 KiB.
 */
export const MAX_SIGNED_ANSWER_BYTES = 4 * 1024;

export type ChallengeRefusal =
  | 'SIGNATURE_INVALID'
  | 'KEY_NOT_AUTHORIZED'
  | 'DID_RESOLUTION_FAILED'
  | 'DID_DEACTIVATED'
  | 'CHALLENGE_MISMATCH'
  | 'USER_MISMATCH'
  | 'PROOF_INVALID';

export interface IssuedChallenge {
  challengeId: string;
  challenge: string;
  userDid: string;
  expiresAt: Date;
}

export interface ChallengeAnswer {
  signature?: string;
  verificationMethod?: string;
  proof?: Record<string, unknown>;
}

export type ChallengeVerdict =
  | {
      verified: true;
      userDid: string;
      challengeId: string;
      evidence: 'signature' | 'UserConsent' | 'VerifiablePresentation';
      verificationMethod: string;
      consent?: JsonObject;
    }
  | { verified: false; userDid: string; challengeId: string; reason: ChallengeRefusal; message: string };

/** Why an answer was judged not verified: its code is the verdict's `reason` (a 200, not an HTTP error). */
class Refusal extends MandateError<ChallengeRefusal> {
  override name = 'Refusal';

  get reason(): ChallengeRefusal {
    return this.code;
  }
}

/** Longest user DID kept whole in the audit trail (a DID may be 2048 characters long here). */
const MAX_AUDITED_DID = 256;

/** POST /v1/challenges */
async function issueChallenge(
  deps: Pick<IssuerDeps, 'stores' | 'audit' | 'now'>,
  userDid: string,
  actor: string,
): Promise<IssuedChallenge> {
  const did = requireDid(userDid);
  const createdAt = deps.now();
  const issued = {
    challengeId: crypto.randomUUID(),
    challenge: bytesToBase64url(randomBytes(32)),
    userDid: did,
    expiresAt: new Date(createdAt + CHALLENGE_TTL_MS),
  };
  await deps.stores.transaction(async (tx) => {
    await tx.challenges.insert({
      id: issued.challengeId,
      userDid: did,
      challenge: issued.challenge,
      createdAt,
      expiresAt: createdAt + CHALLENGE_TTL_MS,
    });
    // Clipped: anyone may ask for challenges, and the audit trail is never pruned.
    const data = { challengeId: issued.challengeId, userDid: clipText(did, MAX_AUDITED_DID) };
    await deps.audit.record({ event: 'USER_CHALLENGE_ISSUED', actor, data }, tx);
  });
  return issued;
}

/** The 64 signature bytes from base58btc multibase ("z…") or hex; 400 otherwise. */
export function decodeSignature(signature: string): Uint8Array {
  let bytes: Uint8Array | undefined;
  try {
    if (signature.startsWith('z')) bytes = decodeBase58btc(signature, 'signature');
    else if (/^[0-9a-fA-F]+$/.test(signature)) bytes = hexToBytes(signature, undefined, 'signature');
  } catch {
    bytes = undefined;
  }
  if (bytes?.length !== 64) {
    throw refuse(
      'SIGNATURE_ENCODING_INVALID',
      'signature must be 64 bytes as base58btc multibase ("z…") or hexadecimal',
    );
  }
  return bytes;
}

function notKeyOf(userDid: string): (verificationMethod: string) => Refusal {
  return (vm) => new Refusal('KEY_NOT_AUTHORIZED', `${vm} is not a key of ${userDid}`);
}

function refusalOf(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  if (isMandateError(error)) {
    switch (error.code) {
      case 'DID_DEACTIVATED':
      case 'DID_RESOLUTION_FAILED':
      case 'KEY_NOT_AUTHORIZED':
        return new Refusal(error.code, error.message);
      case 'INVALID_PUBLIC_KEY':
        return new Refusal('KEY_NOT_AUTHORIZED', error.message);
      case 'CHALLENGE_MISMATCH':
        return new Refusal('CHALLENGE_MISMATCH', 'the proof does not answer this challenge');
      case 'PROOF_SIGNATURE_INVALID':
        return new Refusal('SIGNATURE_INVALID', 'the proof signature does not verify');
      default:
        return new Refusal('PROOF_INVALID', error.message);
    }
  }
  return new Refusal('PROOF_INVALID', 'the proof could not be verified');
}

/** The user DID's authentication methods (ids), for a signature that does not name one. */
async function authenticationMethods(deps: Pick<IssuerDeps, 'resolver'>, userDid: string): Promise<string[]> {
  const result = await deps.resolver.resolve(userDid);
  const error = result.didResolutionMetadata.error;
  if (error !== undefined || !result.didDocument)
    throw new Refusal('DID_RESOLUTION_FAILED', `${userDid} could not be resolved (${String(error ?? 'no document')})`);
  if (result.didDocumentMetadata.deactivated === true)
    throw new Refusal('DID_DEACTIVATED', `${userDid} is deactivated`);
  const ids = (result.didDocument.authentication ?? []).map((entry) =>
    absoluteDidUrl(typeof entry === 'string' ? entry : entry.id, userDid),
  );
  if (ids.length === 0) throw new Refusal('KEY_NOT_AUTHORIZED', `${userDid} has no authentication key`);
  return ids.slice(0, MAX_KEYS_TRIED);
}

async function checkSignature(
  deps: Pick<IssuerDeps, 'resolver' | 'now'>,
  userDid: string,
  challenge: string,
  signature: Uint8Array,
  named?: string,
): Promise<string> {
  const resolveKey = controllerKeyResolver(deps, userDid, notKeyOf(userDid));
  const candidates = named === undefined ? await authenticationMethods(deps, userDid) : [named];
  const message = utf8ToBytes(challenge);
  let lastError: unknown = new Refusal(
    'SIGNATURE_INVALID',
    'the signature does not verify with any authentication key of the user',
  );
  for (const vm of candidates) {
    try {
      const publicKey = await resolveKey(vm, 'authentication');
      if (await verify(signature, message, publicKey)) return vm;
      lastError = new Refusal(
        'SIGNATURE_INVALID',
        'the signature does not verify with any authentication key of the user',
      );
    } catch (error) {
      lastError = error; // a method of another type (not Ed25519) is skipped; the last reason is reported
    }
  }
  throw refusalOf(lastError);
}

interface ProofEvidence {
  kind: 'UserConsent' | 'VerifiablePresentation';
  consent?: JsonObject;
}

/** What the signed object claims to be; 400 when it is neither a UserConsent nor a presentation. */
function proofKind(proof: Record<string, unknown>): ProofEvidence['kind'] {
  if (proof.type === 'UserConsent') return 'UserConsent';
  if (Array.isArray(proof.type) && proof.type.includes('VerifiablePresentation')) return 'VerifiablePresentation';
  throw refuse('VALIDATION_FAILED', 'proof must be a signed UserConsent or a DID-Auth VerifiablePresentation');
}

async function checkProof(
  deps: Pick<IssuerDeps, 'resolver' | 'now'>,
  userDid: string,
  challenge: string,
  signed: Record<string, unknown>,
  kind: ProofEvidence['kind'],
): Promise<{ vm: string; consent?: JsonObject }> {
  const signer = kind === 'UserConsent' ? signed.user : signed.holder;
  if (signer !== userDid)
    throw new Refusal('USER_MISMATCH', `the signed ${kind} is by ${String(signer).slice(0, 200)}, not ${userDid}`);
  const { proofs } = await verifyProof(signed, {
    resolveKey: controllerKeyResolver(deps, userDid, notKeyOf(userDid)),
    expectedProofPurpose: 'authentication',
    expectedChallenge: challenge,
    now: new Date(deps.now()),
  });
  const vm = proofs[0]?.proof.verificationMethod ?? '';
  if (kind !== 'UserConsent') return { vm };
  // docs/protocol.md §Consent evidence: what the user approved, recorded with the verdict.
  const scopes = (() => {
    try {
      return parseScopes(signed.privilegeScopes);
    } catch {
      throw new Refusal('PROOF_INVALID', 'the UserConsent privilegeScopes are not valid scopes');
    }
  })();
  const consent: JsonObject = {
    user: userDid,
    ...(typeof signed.agent === 'string' ? { agent: clipText(signed.agent, 512) } : {}),
    ...(typeof signed.provider === 'string' ? { provider: clipText(signed.provider, 512) } : {}),
    privilegeScopes: scopes,
  };
  return { vm, consent };
}

/** The answer's input checks: 400s that leave the challenge usable (decoded and classified first). */
function readAnswer(answer: ChallengeAnswer): { signature?: Uint8Array; kind?: ProofEvidence['kind'] } {
  if ((answer.signature === undefined) === (answer.proof === undefined)) {
    throw refuse('VALIDATION_FAILED', 'send exactly one of "signature" or "proof"');
  }
  if (answer.signature !== undefined) return { signature: decodeSignature(answer.signature) };
  const proof = answer.proof as Record<string, unknown>;
  const kind = proofKind(proof);
  try {
    assertSafeJson(proof, { maxBytes: MAX_SIGNED_ANSWER_BYTES });
  } catch (error) {
    throw refuse('VALIDATION_FAILED', `proof: ${(error as Error).message}`);
  }
  return { kind };
}

interface Judged {
  verdict: ChallengeVerdict;
  evidence: JsonObject;
  /** How it was answered: 'signature', or the signed object's kind. */
  form: string;
}

/** The verdict on a well-formed answer; a refusal is a verdict too (not verified, with its reason). */
async function judgeAnswer(
  deps: Pick<IssuerDeps, 'resolver' | 'now'>,
  record: { id: string; userDid: string; challenge: string },
  answer: ChallengeAnswer,
  read: { signature?: Uint8Array; kind?: ProofEvidence['kind'] },
): Promise<Judged> {
  const { id: challengeId, userDid, challenge } = record;
  try {
    if (read.signature !== undefined) {
      const vm = await checkSignature(deps, userDid, challenge, read.signature, answer.verificationMethod);
      return {
        verdict: { verified: true, userDid, challengeId, evidence: 'signature', verificationMethod: vm },
        evidence: { form: 'signature', verificationMethod: vm, signature: answer.signature ?? '' },
        form: 'signature',
      };
    }
    const kind = read.kind as ProofEvidence['kind'];
    const { vm, consent } = await checkProof(deps, userDid, challenge, answer.proof as Record<string, unknown>, kind);
    return {
      verdict: {
        verified: true,
        userDid,
        challengeId,
        evidence: kind,
        verificationMethod: vm,
        ...(consent ? { consent } : {}),
      },
      evidence: { form: kind, verificationMethod: vm, signed: answer.proof as JsonObject },
      form: kind,
    };
  } catch (error) {
    const refusal = refusalOf(error);
    const form = read.signature !== undefined ? 'signature' : (read.kind ?? 'proof');
    return {
      verdict: { verified: false, userDid, challengeId, reason: refusal.reason, message: refusal.message },
      evidence: { form, reason: refusal.reason },
      form,
    };
  }
}

/** Consumes the challenge with its verdict and audits it, atomically; false when another answer (or expiry) came first. */
function recordVerdict(
  deps: Pick<IssuerDeps, 'stores' | 'audit' | 'now'>,
  judged: Judged,
  actor: string,
): Promise<boolean> {
  const { verdict, evidence, form } = judged;
  const { challengeId, userDid } = verdict;
  return deps.stores.transaction(async (tx) => {
    const outcome = { verified: verdict.verified, evidence: JSON.stringify(evidence) };
    if (!(await tx.challenges.consume(challengeId, deps.now(), outcome))) return false;
    await deps.audit.record(
      {
        event: verdict.verified ? 'CONSENT_VERIFIED' : 'CONSENT_REJECTED',
        actor,
        ...(verdict.verified ? {} : { reason: verdict.reason }),
        // Filed under the agent only when it names a DID: it is the signer's text, kept in `data` as written.
        ...(verdict.verified &&
        typeof verdict.consent?.agent === 'string' &&
        didOf(verdict.consent.agent) === verdict.consent.agent
          ? { agentDid: verdict.consent.agent }
          : {}),
        data: {
          challengeId,
          userDid,
          form,
          ...(verdict.verified ? { verificationMethod: verdict.verificationMethod } : {}),
          ...(verdict.verified && verdict.consent ? { consent: verdict.consent } : {}),
        },
      },
      tx,
    );
    return true;
  });
}

/** POST /v1/challenges/:challengeId/verify */
async function verifyChallenge(
  deps: ChallengeDeps,
  challengeId: string,
  answer: ChallengeAnswer,
  actor: string,
): Promise<ChallengeVerdict> {
  const record = await deps.stores.challenges.get(challengeId);
  if (!record) throw refuse('CHALLENGE_NOT_FOUND', 'no such challenge');
  if (record.usedAt !== undefined) throw refuse('CHALLENGE_USED', 'this challenge was already answered');
  if (deps.now() > record.expiresAt) throw refuse('CHALLENGE_EXPIRED', 'this challenge has expired; ask for a new one');
  const judged = await judgeAnswer(deps, record, answer, readAnswer(answer));
  if (!(await recordVerdict(deps, judged, actor))) {
    throw (await deps.stores.challenges.get(challengeId))?.usedAt !== undefined
      ? refuse('CHALLENGE_USED', 'this challenge was already answered')
      : refuse('CHALLENGE_EXPIRED', 'this challenge expired while the answer was judged; ask for a new one');
  }
  return judged.verdict;
}

export interface ChallengeService {
  issue(userDid: string, actor: string): Promise<IssuedChallenge>;
  verify(challengeId: string, answer: ChallengeAnswer, actor: string): Promise<ChallengeVerdict>;
}

export function createChallengeService(deps: ChallengeDeps): ChallengeService {
  return {
    issue: (userDid, actor) => issueChallenge(deps, userDid, actor),
    verify: (challengeId, answer, actor) => verifyChallenge(deps, challengeId, answer, actor),
  };
}
