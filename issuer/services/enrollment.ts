/**
 * Enrollment: an operator mints a single-use token carrying the authority an agent will get
 * (scopes, delegation depth, domains); the agent onboards with it in two steps:
 *
 * 1. `startOnboarding` {token, custody, did?} → a challenge. The token is checked, NOT consumed.
 * 2. `completeOnboarding` {challengeId, proof | challenge} → the agent and its AgentCredential.
 *    Self custody: `proof` is a DID-Auth presentation signed by the agent's DID (below).
 *    Server custody: the issuer generates the key; echoing the challenge completes it.
 *    The token is consumed atomically with everything this step creates: a conditional
 *    `UPDATE … WHERE used_at IS NULL` inside the one transaction that also inserts the agent,
 *    its key, its DID document and its credential, so of any number of concurrent completions
 *    exactly one succeeds and the others create nothing (409 TOKEN_USED).
 *
 * The token itself (256 random bits, base64url) is returned once and stored only as its
 * SHA-256; the challenge is 256 random bits too.
 *
 * DID-Auth proof (self custody): `{"@context": ["https://www.w3.org/ns/credentials/v2"],
 * "type": ["VerifiablePresentation"], "holder": <did>, "proof": <DataIntegrityProof
 * eddsa-jcs-2022, proofPurpose "authentication", challenge: <challenge>, domain: <issuer DID>>}`,
 * the key being in the holder DID's `authentication` relationship.
 */
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { bytesToHex, equalBytes, hexToBytes, randomBytes } from '../../wallet/crypto/bytes.ts';
import { verifyProof } from '../../wallet/crypto/data-integrity.ts';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import { parseDid } from '../../wallet/did/parse.ts';
import { createKeyResolver } from '../../wallet/did/verification-method.ts';
import type { IssuerDeps } from '../deps.ts';
import type { IssuerStores } from '../storage/stores.ts';
import { invalidCursor, refuse } from '../refusal.ts';
import { credentialKey, enforceLimit } from '../rate-limiter.ts';
import type { EnrollmentTokenRecord, OnboardingSessionRecord } from '../storage/tokens-store.ts';
import { isTokenCursor, tokenCursor } from '../storage/tokens-store.ts';
import { createServerKey, type NewServerKey } from './custody.ts';
import { issueAtomically } from './credentials.ts';
import type {
  Enrolled,
  EnrollmentToken,
  EnrollmentTokenInfo,
  OnboardingChallenge,
} from '../../wallet/contract/enrollment.ts';

export function hashToken(token: string): string {
  return bytesToHex(sha256Utf8(token));
}

const newSecret = (): string => bytesToBase64url(randomBytes(32));

/** True when `offered` is the challenge whose hash `session` keeps; constant time. */
function answersChallenge(session: OnboardingSessionRecord, offered: unknown): offered is string {
  if (typeof offered !== 'string' || !/^[0-9a-f]{64}$/.test(session.challengeHash)) return false;
  return equalBytes(sha256Utf8(offered), hexToBytes(session.challengeHash));
}

export interface MintInput {
  requestedScopes: string[];
  maxDelegationDepth: number;
  requestedDomains: string[];
  ttlSeconds?: number;
  credentialValiditySeconds?: number;
}

export type MintedToken = EnrollmentToken;

export async function mintEnrollmentToken(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'now'>,
  input: MintInput,
  actor: string,
): Promise<MintedToken> {
  const token = newSecret();
  const now = deps.now();
  const record = {
    id: crypto.randomUUID(),
    tokenHash: hashToken(token),
    requestedScopes: [...new Set(input.requestedScopes)],
    maxDelegationDepth: input.maxDelegationDepth,
    requestedDomains: [...new Set(input.requestedDomains)],
    credentialTtlSeconds: input.credentialValiditySeconds ?? deps.config.credentialTtlSeconds,
    createdAt: now,
    expiresAt: now + (input.ttlSeconds ?? deps.config.enrollmentTokenTtlSeconds) * 1000,
    createdBy: actor,
  };
  await deps.stores.transaction(async (tx) => {
    await tx.tokens.insert(record);
    const data = {
      tokenId: record.id,
      requestedScopes: record.requestedScopes,
      maxDelegationDepth: record.maxDelegationDepth,
      requestedDomains: record.requestedDomains,
    };
    await deps.audit.record({ event: 'ENROLLMENT_TOKEN_MINTED', actor, data }, tx);
  });
  return { tokenId: record.id, token, expiresAt: new Date(record.expiresAt).toISOString() };
}

// The wire type is the client's (docs/api.md `GET /v1/enrollment-tokens`): one definition for both ends.
type TokenView = EnrollmentTokenInfo;
type TokenState = EnrollmentTokenInfo['state'];

function tokenState(token: EnrollmentTokenRecord, now: number): TokenState {
  if (token.usedAt !== null) return 'used';
  return token.expiresAt <= now ? 'expired' : 'outstanding';
}

function tokenView(row: EnrollmentTokenRecord, state: TokenState): TokenView {
  return {
    tokenId: row.id,
    state,
    requestedScopes: row.requestedScopes,
    maxDelegationDepth: row.maxDelegationDepth,
    requestedDomains: row.requestedDomains,
    createdAt: new Date(row.createdAt).toISOString(),
    expiresAt: new Date(row.expiresAt).toISOString(),
    ...(row.usedAt === null ? {} : { usedAt: new Date(row.usedAt).toISOString() }),
    ...(row.agentDid === null ? {} : { agentDid: row.agentDid }),
  };
}

/** Admin listing, newest first: never the token values (they are not stored). */
export async function listEnrollmentTokens(
  deps: Pick<IssuerDeps, 'stores' | 'now'>,
  page: { cursor?: string; limit: number; state?: TokenState },
): Promise<{ tokens: TokenView[]; nextCursor?: string }> {
  if (page.cursor !== undefined && !isTokenCursor(page.cursor)) throw invalidCursor();
  const now = deps.now();
  const views: TokenView[] = [];
  let cursor = page.cursor;
  // The state is derived (expiry depends on now), so it is filtered after reading: keep reading
  // until the page is full, the table ends, or a bounded number of reads was spent.
  for (let round = 0; round < 50; round++) {
    const rows = await deps.stores.tokens.list({ ...(cursor === undefined ? {} : { cursor }), limit: page.limit + 1 });
    for (const row of rows) {
      if (views.length === page.limit)
        return { tokens: views, ...(cursor === undefined ? {} : { nextCursor: cursor }) };
      cursor = tokenCursor(row);
      const state = tokenState(row, now);
      if (page.state === undefined || state === page.state) views.push(tokenView(row, state));
    }
    if (rows.length <= page.limit) return { tokens: views };
  }
  return { tokens: views, ...(cursor === undefined ? {} : { nextCursor: cursor }) };
}

/** Checks a token is known, unused and unexpired (the same codes everywhere). */
function assertTokenUsable(token: EnrollmentTokenRecord | undefined, now: number): EnrollmentTokenRecord {
  if (!token) throw refuse('TOKEN_INVALID', 'the enrollment token is not valid');
  if (token.usedAt !== null) throw refuse('TOKEN_USED', 'the enrollment token was already used');
  if (token.expiresAt <= now)
    throw refuse('TOKEN_EXPIRED', 'the enrollment token has expired; ask the operator for a new one');
  return token;
}

export interface StartInput {
  token: string;
  custody: 'server' | 'self';
  did?: string;
}

/** Its `domain` is the one a self-custody DID-Auth proof must name: this issuer's DID. */
export type StartedOnboarding = OnboardingChallenge;

export async function startOnboarding(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'issuer' | 'audit' | 'rateLimits' | 'now'>,
  input: StartInput,
): Promise<StartedOnboarding> {
  const tokenHash = hashToken(input.token);
  await enforceLimit(deps.rateLimits.perToken, credentialKey('enroll', tokenHash), 'with this enrollment token');
  const now = deps.now();
  const token = assertTokenUsable(await deps.stores.tokens.findByHash(tokenHash), now);
  let did: string | null = null;
  if (input.custody === 'self') {
    if (input.did === undefined)
      throw refuse('VALIDATION_FAILED', "self custody needs the agent's did", {
        details: [{ path: 'json.did', message: 'required when custody is "self"' }],
      });
    let method: string;
    try {
      const parsed = parseDid(input.did);
      if (parsed.did !== input.did) throw new Error('not a bare DID');
      method = parsed.method;
    } catch {
      throw refuse('VALIDATION_FAILED', 'did must be a DID without path, query or fragment', {
        details: [{ path: 'json.did', message: 'not a DID' }],
      });
    }
    if (method !== 'key' && method !== 'web')
      throw refuse('DID_METHOD_UNSUPPORTED', `did:${method} cannot be enrolled here (did:key and did:web can)`);
    if (await deps.stores.agents.get(input.did))
      throw refuse('AGENT_EXISTS', `${input.did} is already enrolled`, { agentDid: input.did });
    did = input.did;
  } else if (input.did !== undefined) {
    throw refuse('VALIDATION_FAILED', 'server custody generates the DID; do not send one', {
      details: [{ path: 'json.did', message: 'must be absent when custody is "server"' }],
    });
  }
  const challenge = newSecret();
  const session: Omit<OnboardingSessionRecord, 'completedAt'> = {
    id: crypto.randomUUID(),
    tokenId: token.id,
    custody: input.custody,
    did,
    // Stored as its hash, like tokens: a copy of the database cannot complete an onboarding.
    challengeHash: hashToken(challenge),
    createdAt: now,
    expiresAt: Math.min(now + deps.config.onboardingTtlSeconds * 1000, token.expiresAt),
  };
  await deps.stores.transaction(async (tx) => {
    await tx.tokens.insertSession(session);
    const data = { tokenId: token.id, custody: input.custody, challengeId: session.id };
    await deps.audit.record(
      { event: 'ONBOARDING_STARTED', actor: 'anonymous', ...(did ? { agentDid: did } : {}), data },
      tx,
    );
  });
  return {
    challengeId: session.id,
    challenge,
    expiresAt: new Date(session.expiresAt).toISOString(),
    domain: deps.issuer.did,
  };
}

export interface CompleteInput {
  challengeId: string;
  /** Self custody: the DID-Auth presentation. */
  proof?: unknown;
  /** Server custody: the challenge from step 1. */
  challenge?: string;
}

export type CompletedOnboarding = Enrolled;

/** Self custody: the DID-Auth presentation proves possession of the holder DID's authentication key. */
async function verifyDidAuth(
  deps: Pick<IssuerDeps, 'issuer' | 'resolver' | 'now'>,
  session: OnboardingSessionRecord,
  proof: unknown,
): Promise<void> {
  const did = session.did as string;
  const holder = typeof proof === 'object' && proof !== null ? (proof as { holder?: unknown }).holder : undefined;
  if (holder !== did)
    throw refuse('PROOF_INVALID', `the proof must be a presentation whose holder is ${did}`, { agentDid: did });
  const signed = (proof as { proof?: unknown }).proof;
  const offered =
    typeof signed === 'object' && signed !== null ? (signed as { challenge?: unknown }).challenge : undefined;
  if (!answersChallenge(session, offered)) {
    throw refuse('PROOF_INVALID', 'the DID-Auth proof does not verify (CHALLENGE_MISMATCH)', {
      agentDid: did,
      details: { cause: 'CHALLENGE_MISMATCH' },
    });
  }
  const resolveKey = createKeyResolver(deps.resolver);
  try {
    await verifyProof(proof, {
      // The key must be the holder's own (a valid proof by some other DID proves nothing).
      resolveKey: (vm, purpose) =>
        vm.split('#')[0] === did
          ? resolveKey(vm, purpose)
          : Promise.reject(refuse('PROOF_INVALID', 'the proof is signed by a key of another DID')),
      expectedProofPurpose: 'authentication',
      expectedChallenge: offered,
      expectedDomain: deps.issuer.did,
      now: new Date(deps.now()),
    });
  } catch (error) {
    const code = isMandateError(error) ? error.code : 'ERROR';
    throw refuse('PROOF_INVALID', `the DID-Auth proof does not verify (${code})`, {
      agentDid: did,
      details: { cause: code },
    });
  }
}

/** Step 2's proof of control: the holder's DID-Auth (self), or the echoed challenge and a new server key. */
async function proveControl(
  deps: Pick<IssuerDeps, 'config' | 'issuer' | 'keyEncryptionKey' | 'resolver' | 'now'>,
  session: OnboardingSessionRecord,
  input: CompleteInput,
  agentId: string,
): Promise<{ agentDid: string; serverKey?: NewServerKey }> {
  if (session.custody === 'self') {
    if (input.proof === undefined)
      throw refuse('VALIDATION_FAILED', 'self custody completes with a DID-Auth proof', {
        details: [{ path: 'json.proof', message: 'required' }],
      });
    await verifyDidAuth(deps, session, input.proof);
    return { agentDid: session.did as string };
  }
  if (input.challenge === undefined)
    throw refuse('VALIDATION_FAILED', 'server custody completes with the challenge', {
      details: [{ path: 'json.challenge', message: 'required' }],
    });
  if (!answersChallenge(session, input.challenge))
    throw refuse('CHALLENGE_MISMATCH', 'the challenge does not match this onboarding');
  const serverKey = await createServerKey(deps, agentId);
  return { agentDid: serverKey.did, serverKey };
}

/** The single-use gates, first in the transaction: losers throw and nothing is written. */
async function claimOnce(
  deps: Pick<IssuerDeps, 'now'>,
  tx: IssuerStores,
  enrolled: { session: OnboardingSessionRecord; token: EnrollmentTokenRecord; agentDid: string },
): Promise<void> {
  const { session, token, agentDid } = enrolled;
  const at = deps.now();
  if (!(await tx.tokens.completeSession(session.id, at))) {
    throw (await tx.tokens.findSession(session.id))?.completedAt !== null
      ? refuse('CHALLENGE_USED', 'this onboarding challenge was already completed')
      : refuse('CHALLENGE_EXPIRED', 'the onboarding challenge expired while the answer was judged; start again');
  }
  if (!(await tx.tokens.claim(token.id, at, agentDid))) {
    const current = await tx.tokens.findById(token.id);
    throw current?.usedAt !== null
      ? refuse('TOKEN_USED', 'the enrollment token was already used')
      : refuse('TOKEN_EXPIRED', 'the enrollment token has expired');
  }
  if (await tx.agents.get(agentDid)) throw refuse('AGENT_EXISTS', `${agentDid} is already enrolled`, { agentDid });
}

/** The agent (and its server key and hosted DID) and the audit records, in the issuing transaction. */
async function recordEnrollment(
  deps: Pick<IssuerDeps, 'audit' | 'now'>,
  tx: IssuerStores,
  enrolled: { session: OnboardingSessionRecord; token: EnrollmentTokenRecord; agentId: string; agentDid: string },
  credentialId: string,
  serverKey: NewServerKey | undefined,
): Promise<void> {
  const { session, token, agentId, agentDid } = enrolled;
  const at = deps.now();
  if (serverKey) {
    await tx.dids.insert({
      did: serverKey.did,
      document: serverKey.document,
      kind: 'agent',
      deactivated: false,
      createdAt: at,
      updatedAt: at,
    });
    await tx.agents.insertKey(serverKey.record);
  }
  await tx.agents.insert({
    did: agentDid,
    id: agentId,
    custody: session.custody,
    tokenId: token.id,
    privilegeScopes: token.requestedScopes,
    delegationDepth: token.maxDelegationDepth,
    domains: token.requestedDomains.length > 0 ? token.requestedDomains : null,
    currentCredentialId: credentialId,
    createdAt: at,
  });
  const enrolledData = { tokenId: token.id, custody: session.custody, challengeId: session.id };
  await deps.audit.record({ event: 'AGENT_ENROLLED', actor: 'anonymous', agentDid, data: enrolledData }, tx);
  const issuedData = { vcId: credentialId, via: 'onboarding' };
  await deps.audit.record({ event: 'CREDENTIAL_ISSUED', actor: 'system', agentDid, data: issuedData }, tx);
}

export async function completeOnboarding(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'issuer' | 'keyEncryptionKey' | 'resolver' | 'audit' | 'now'>,
  input: CompleteInput,
): Promise<CompletedOnboarding> {
  const session = await deps.stores.tokens.findSession(input.challengeId);
  if (!session) throw refuse('CHALLENGE_NOT_FOUND', 'no onboarding challenge has this id');
  const now = deps.now();
  if (session.completedAt !== null) throw refuse('CHALLENGE_USED', 'this onboarding challenge was already completed');
  if (session.expiresAt <= now) throw refuse('CHALLENGE_EXPIRED', 'the onboarding challenge has expired; start again');
  const token = assertTokenUsable(await deps.stores.tokens.findById(session.tokenId), now);

  const agentId = crypto.randomUUID();
  const { agentDid, serverKey } = await proveControl(deps, session, input, agentId);
  const { prepared } = await issueAtomically(
    deps,
    {
      subjectDid: agentDid,
      privilegeScopes: token.requestedScopes,
      delegationDepth: token.maxDelegationDepth,
      domains: token.requestedDomains.length > 0 ? token.requestedDomains : null,
      validitySeconds: token.credentialTtlSeconds,
    },
    {
      before: (_p, tx) => claimOnce(deps, tx, { session, token, agentDid }),
      after: (p, tx) => recordEnrollment(deps, tx, { session, token, agentId, agentDid }, p.credential.id, serverKey),
    },
  );
  return {
    agentDid,
    vcId: prepared.credential.id,
    custody: session.custody,
    verifiableCredential: prepared.credential,
  };
}
