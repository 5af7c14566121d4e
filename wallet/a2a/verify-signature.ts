/**
 * The first half of `verifyAgentCard`: the card is signed by a key of the DID its Mandate
 * identity extension names (A2A v1.0 §8.4.3, the key taken from the DID document rather than
 * `jku`). Checks, in order, each failure its own code (docs/a2a.md §Verification):
 * the card's shape, a signature present, the extension, the signature's form, the key in the
 * DID document's `assertionMethod`, the signature itself.
 */
import { isMandateError } from '../crypto/errors.ts';
import {
  decodeProtectedHeader,
  isEdDsaAlg,
  parseDetachedJws,
  verifyJws,
  type ParsedDetachedJws,
} from '../crypto/jws.ts';
import { canonicalBytes } from '../crypto/jcs.ts';
import { parseJson } from '../crypto/json-parse.ts';
import { isObject, type JsonObject, type JsonValue } from '../crypto/json-value.ts';
import { didOf } from '../did/parse.ts';
import type { Resolvable } from '../did/types.ts';
import { createKeyResolver } from '../did/verification-method.ts';
import { A2aCardError, type AgentCardReason } from './errors.ts';
import { readMandateExtension } from './extension.ts';
import { MAX_AGENT_CARD_BYTES, signedAgentCard } from './payload.ts';

export interface VerifyAgentCardSignatureOptions {
  /** A DID resolver, ideally cached (`createCachedResolver`). */
  resolver: Resolvable;
  /** Clock for the key's `expires`/`revoked` (default: now). */
  now?: Date;
}

/** A card signed by a key of the DID it names. */
export interface AgentCardSignatureSuccess {
  valid: true;
  /** The DID the Mandate identity extension names. */
  agentDid: string;
  /** The `kid` of the signature that verified: a DID URL of `agentDid`. */
  keyId: string;
  /**
   * What the signature covers (A2A v1.0 §8.4.1): the card without `signatures`, without
   * default-valued fields and without members A2A v1.0 does not define. Read the card from here.
   */
  card: JsonObject;
  /** The credential chain the extension carries, leaf first, not yet verified. */
  credentials: JsonValue[];
}

export interface AgentCardFailure {
  valid: false;
  reason: AgentCardReason;
  message: string;
}

/** Codes of the key lookup (wallet/did/verification-method.ts) as the card verifier reports them. */
const KEY_REASONS: Readonly<Record<string, AgentCardReason>> = {
  DID_RESOLUTION_FAILED: 'DID_RESOLUTION_FAILED',
  DID_DEACTIVATED: 'DID_DEACTIVATED',
  KEY_NOT_AUTHORIZED: 'KEY_NOT_AUTHORIZED',
  INVALID_PUBLIC_KEY: 'KEY_NOT_AUTHORIZED',
};

/** The refusal a thrown error stands for; anything unexpected fails closed without its text. */
export function cardRefusal(error: unknown, fallback: AgentCardReason): AgentCardFailure {
  if (error instanceof A2aCardError) return { valid: false, reason: error.code, message: error.message };
  if (isMandateError(error)) {
    const reason = KEY_REASONS[error.code];
    if (reason !== undefined) return { valid: false, reason, message: error.message };
  }
  return { valid: false, reason: fallback, message: 'agent card verification failed unexpectedly' };
}

/** A signature entry's kid when it is a DID URL with a fragment, read before the entry is trusted. */
function kidOf(entry: JsonValue): string | undefined {
  const kid = isObject(entry) ? decodeProtectedHeader(entry.protected)?.kid : undefined;
  return typeof kid === 'string' && kid.includes('#') && didOf(kid) !== undefined ? kid : undefined;
}

/** The agent's signatures of the card: those whose kid is a DID URL of `did`. */
function agentSignatures(signatures: JsonValue, did: string): JsonObject[] {
  if (!Array.isArray(signatures) || signatures.length === 0)
    throw new A2aCardError('A2A_CARD_UNSIGNED', 'the card carries no signatures');
  const kids = signatures.map(kidOf);
  const ours = signatures.filter((_, i) => kids[i] !== undefined && didOf(kids[i]) === did);
  if (ours.length > 0) return ours as JsonObject[];
  const other = kids.find((kid) => kid !== undefined);
  if (other !== undefined)
    throw new A2aCardError(
      'KEY_NOT_AUTHORIZED',
      `the card is signed by ${other.slice(0, 200)}, not by a key of ${did}`,
    );
  throw new A2aCardError('A2A_CARD_UNSIGNED', `no signature of the card names a key of ${did}`);
}

/** RFC 7515 §4.1 and A2A v1.0 §8.4.2: an EdDSA JWS, typ "JOSE", its unprotected header disjoint. */
function parseSignature(entry: JsonObject, payload: Uint8Array): ParsedDetachedJws & { kid: string } {
  const fail = (message: string): never => {
    throw new A2aCardError('A2A_CARD_SIGNATURE_MALFORMED', message);
  };
  const jws = parseDetachedJws({ protected: entry.protected, signature: entry.signature }, payload);
  if (jws === undefined)
    return fail('the signature is not base64url JSON with a 64-byte signature, or names a crit extension');
  const { alg, typ, kid } = jws.header;
  if (!isEdDsaAlg(alg)) fail(`the signature's alg is ${JSON.stringify(alg ?? null).slice(0, 40)}, not EdDSA`);
  if (typ !== 'JOSE') fail('the signature\'s protected header must name typ "JOSE" (A2A v1.0 §8.4.2)');
  const unprotected = entry.header;
  if (unprotected !== undefined) {
    // RFC 7515 §7.2.1: a parameter in both headers makes which one counts a reader's choice.
    if (!isObject(unprotected) || Object.keys(unprotected).some((name) => name in jws.header))
      fail('the unprotected header is not an object, or repeats a protected header parameter');
  }
  return { ...jws, kid: kid as string };
}

/** Throws the first failure of the agent's signatures, or returns the key id of one that verifies. */
async function verifiedKey(
  entries: JsonObject[],
  payload: Uint8Array,
  options: VerifyAgentCardSignatureOptions,
): Promise<string> {
  const keyOf = createKeyResolver(options.resolver, { now: () => options.now?.getTime() ?? Date.now() });
  let first: unknown;
  for (const entry of entries) {
    try {
      const jws = parseSignature(entry, payload);
      // A card is a statement the agent makes about itself: an assertionMethod key signs it.
      const publicKey = await keyOf(jws.kid, 'assertionMethod');
      if (await verifyJws(jws, publicKey)) return jws.kid;
      throw new A2aCardError('A2A_CARD_SIGNATURE_INVALID', `the signature by ${jws.kid} does not verify over the card`);
    } catch (error) {
      first ??= error;
    }
  }
  throw first;
}

/** A card received as JSON text, parsed under the card's limits (A2A_CARD_MALFORMED otherwise). */
function parseCard(text: string): JsonValue {
  try {
    return parseJson(text, { maxBytes: MAX_AGENT_CARD_BYTES, maxDepth: 32 });
  } catch (error) {
    throw new A2aCardError(
      'A2A_CARD_MALFORMED',
      `the card is not strict JSON within the limits: ${(error as Error).message}`,
    );
  }
}

/**
 * Whether `card` (a parsed value or JSON text) is signed by a key of the DID its Mandate identity
 * extension names. A refusal is a result, never an exception. Does not look at the credentials:
 * verifyAgentCard does.
 */
export async function verifyAgentCardSignature(
  card: unknown,
  options: VerifyAgentCardSignatureOptions,
): Promise<AgentCardSignatureSuccess | AgentCardFailure> {
  try {
    const value = typeof card === 'string' ? parseCard(card) : card;
    const signed = signedAgentCard(value);
    const signatures = (value as JsonObject).signatures ?? null;
    if (signatures === null || (Array.isArray(signatures) && signatures.length === 0))
      throw new A2aCardError('A2A_CARD_UNSIGNED', 'the card carries no signatures');
    if (!Array.isArray(signatures)) throw new A2aCardError('A2A_CARD_MALFORMED', 'card.signatures must be an array');
    const { did, credentials } = readMandateExtension(signed);
    const payload = canonicalBytes(signed, { maxBytes: MAX_AGENT_CARD_BYTES });
    const keyId = await verifiedKey(agentSignatures(signatures, did), payload, options);
    return { valid: true, agentDid: did, keyId, card: signed, credentials };
  } catch (error) {
    return cardRefusal(error, 'A2A_CARD_SIGNATURE_INVALID');
  }
}
