/**
 * The A2A card layer's own reason codes (each registered once in wallet/reasons/registry.ts,
 * checked here at compile time). A refused card also reports the DID layer's codes (the key
 * check) and the verifier's (the credential chain) unchanged: docs/a2a.md §Reason codes.
 */
import { MandateError } from '../crypto/errors.ts';
import type { RegisteredCode } from '../reasons/registry.ts';
import type { ReasonCode } from '../vc/reasons.ts';

export const A2A_CARD_CODES = [
  'A2A_CARD_MALFORMED',
  'A2A_CARD_AMBIGUOUS',
  'A2A_CARD_UNSIGNED',
  'A2A_EXTENSION_MISSING',
  'A2A_EXTENSION_MALFORMED',
  'A2A_CARD_SIGNATURE_MALFORMED',
  'A2A_CARD_SIGNATURE_INVALID',
  'A2A_CARD_SUBJECT_MISMATCH',
] as const satisfies readonly RegisteredCode[];

/** A code of the card layer itself. */
export type A2aCardCode = (typeof A2A_CARD_CODES)[number];

/** Why a card was refused: a card-layer code, or the verifier's code for the key or the chain. */
export type AgentCardReason = A2aCardCode | ReasonCode;

/** A card that cannot be signed (signAgentCard throws it) or that is refused (verifyAgentCard reports its code). */
export class A2aCardError extends MandateError<AgentCardReason> {
  override name = 'A2aCardError';
}
