/** What verifyRequest decides: the claims of an allowed request, or a refusal ready to send. */
import type { RefusalCode } from '../wallet/vc/reasons.ts';
import type { RequestSignature } from '../wallet/vc/signed-request.ts';
import type { ChainLink, CheckName, CheckOutcome, SourceAge } from '../wallet/vc/verify.ts';

/** What the handler behind the verifier learns about the agent. */
export interface AgentClaims {
  agentDid: string;
  /** What the agent may do here: its credential's scopes narrowed by any grants. */
  effectiveScopes: string[];
  /** The leaf credential's scopes. */
  privilegeScopes: string[];
  /** The presentation's id; for a signed request, `signature:` and its nonce. */
  vpId: string;
  /** The credentials relied on, leaf first (no proofs, no secrets). */
  chain: ChainLink[];
  /** A signed request's signature (docs/protocol.md §Signed requests); absent for a presentation. */
  signature?: RequestSignature & { chainDigest: string };
}

export type DenialStatus = 400 | 401 | 403;

export interface DenialBody {
  valid: false;
  /** A presentation's reason code, or a signed request's (SIGNED_REQUEST_REASONS). */
  reason: RefusalCode;
  message: string;
}

export interface RequestAllowed {
  allowed: true;
  claims: AgentClaims;
  checks: CheckOutcome[];
  /** Age of every DID document and status list relied on. */
  sources: { dids: SourceAge[]; statusLists: SourceAge[] };
}

export interface RequestDenied {
  allowed: false;
  status: DenialStatus;
  body: DenialBody;
  /** Response headers: `WWW-Authenticate` on 401. */
  headers: Record<string, string>;
  failedCheck: CheckName;
  checks: CheckOutcome[];
}

export type RequestVerdict = RequestAllowed | RequestDenied;
