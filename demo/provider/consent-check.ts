/**
 * What the provider checks before it signs a grant: the user's consent over one of its challenges
 * (proofPurpose authentication, domain = the provider's DID) and the agent's AgentCredential from
 * the trusted issuer. Every check is reported; the first failure stops.
 */
import { verifyProof, type KeyResolver } from '../../wallet/crypto/data-integrity.ts';
import { issuerId, parseCredential } from '../../wallet/vc/parse.ts';
import type { AgentCredential, MandateCredential, UserConsent } from '../../wallet/vc/types.ts';
import type { ConsentChallenges } from './challenges.ts';
import { DID_SYNTAX, errorMessage, isRecord, isStringArray } from './input.ts';

/** One line of what the provider checked, as the page shows it (✓/✗). */
export interface Check {
  check: string;
  ok: boolean;
  detail?: string;
}

export interface ConsentCheckContext {
  providerDid: string;
  /** The issuer whose AgentCredentials the provider accepts as roots. */
  issuerDid: string;
  challenges: ConsentChallenges;
  resolveKey: KeyResolver;
  now: () => number;
}

export interface CheckedConsent {
  checks: Check[];
  /** Both present only when every check passed. */
  consent?: UserConsent;
  agent?: AgentCredential;
}

/** A check's verdict: `{check, ...line}` is the line the page shows. */
type Line = { ok: true; detail?: string } | { ok: false; detail: string };

export const GRANT_CHECK = "grant within the consent and the agent's ceiling";
const CHALLENGE_CHECK = 'challenge is ours, unexpired and unused';
const PROVIDER_CHECK = 'consent names this provider';
const SIGNATURE_CHECK = "user's signature over the consent (authentication, challenge, domain)";
const AGENT_CHECK = "agent's credential is signed by the trusted issuer";
const AGENT_MATCH_CHECK = "consent names the credential's agent";

function challengeOf(consent: Record<string, unknown>): string {
  const proof = isRecord(consent.proof) ? consent.proof : undefined;
  return typeof proof?.challenge === 'string' ? proof.challenge : '';
}

function namesProvider(consent: Record<string, unknown>, providerDid: string): Line {
  const { type, provider, user } = consent;
  if (type !== 'UserConsent' || provider !== providerDid || typeof user !== 'string' || !DID_SYNTAX.test(user))
    return { ok: false, detail: `provider ${String(provider)}` };
  return { ok: true, detail: providerDid };
}

async function userSignature(consent: Record<string, unknown>, challenge: string, ctx: ConsentCheckContext) {
  try {
    await verifyProof(consent, {
      resolveKey: ctx.resolveKey,
      expectedProofPurpose: 'authentication',
      expectedChallenge: challenge,
      expectedDomain: ctx.providerDid,
      now: new Date(ctx.now()),
    });
  } catch (error) {
    return { ok: false, detail: errorMessage(error) } satisfies Line;
  }
  return { ok: true, detail: String(consent.user) } satisfies Line;
}

function isAgentCredential(credential: MandateCredential): credential is AgentCredential {
  return credential.type.includes('AgentCredential');
}

async function trustedAgent(value: unknown, ctx: ConsentCheckContext): Promise<Line & { agent?: AgentCredential }> {
  try {
    const agent = parseCredential(value);
    if (!isAgentCredential(agent) || issuerId(agent) !== ctx.issuerDid)
      throw new Error(`not an AgentCredential of ${ctx.issuerDid}`);
    await verifyProof(agent, {
      resolveKey: ctx.resolveKey,
      expectedProofPurpose: 'assertionMethod',
      now: new Date(ctx.now()),
    });
    return { ok: true, detail: ctx.issuerDid, agent };
  } catch (error) {
    return { ok: false, detail: errorMessage(error) };
  }
}

function namesAgent(consent: Record<string, unknown>, agent: AgentCredential): Line {
  const agentDid = agent.credentialSubject.id;
  if (consent.agent !== agentDid) return { ok: false, detail: `${String(consent.agent)} ≠ ${agentDid}` };
  return { ok: true, detail: agentDid };
}

/** A consent whose proof verifyProof accepted and whose members have the types a grant embeds. */
function isUserConsent(consent: Record<string, unknown>): consent is Record<string, unknown> & UserConsent {
  return (
    consent.type === 'UserConsent' &&
    typeof consent.user === 'string' &&
    typeof consent.agent === 'string' &&
    typeof consent.provider === 'string' &&
    isStringArray(consent.privilegeScopes) &&
    (consent.proof === undefined || isRecord(consent.proof))
  );
}

export async function checkConsentRequest(body: unknown, ctx: ConsentCheckContext): Promise<CheckedConsent> {
  const checks: Check[] = [];
  const passed = (check: string, line: Line) => {
    checks.push({ check, ...line });
    return line.ok;
  };
  if (!isRecord(body) || !isRecord(body.consent) || !isRecord(body.agentCredential)) {
    passed('request', { ok: false, detail: 'expected {consent, agentCredential}' });
    return { checks };
  }
  const consent = body.consent;
  const challenge = challengeOf(consent);
  const fresh = ctx.challenges.consume(challenge);
  if (!passed(CHALLENGE_CHECK, fresh ? { ok: true } : { ok: false, detail: 'unknown, expired or already used' }))
    return { checks };
  if (!passed(PROVIDER_CHECK, namesProvider(consent, ctx.providerDid))) return { checks };
  if (!passed(SIGNATURE_CHECK, await userSignature(consent, challenge, ctx))) return { checks };
  const { agent, ...agentLine } = await trustedAgent(body.agentCredential, ctx);
  if (!passed(AGENT_CHECK, agentLine) || agent === undefined) return { checks };
  if (!passed(AGENT_MATCH_CHECK, namesAgent(consent, agent))) return { checks };
  // Already signed by the user: only scopes that are not a list of strings remain to refuse.
  if (!isUserConsent(consent)) {
    passed(GRANT_CHECK, { ok: false, detail: 'the consent’s privilegeScopes are not a list of scopes' });
    return { checks };
  }
  return { checks, consent, agent };
}
