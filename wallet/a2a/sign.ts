/**
 * `signAgentCard`: an A2A v1.0 Agent Card signed by the agent's own DID key (A2A v1.0 §8.4.2),
 * with the Mandate identity extension naming that DID and carrying its credential chain.
 * The key signs through the wallet's SigningIdentity, so key stores, server custody and
 * non-extractable browser keys all sign cards.
 */
import { signDetachedJws } from '../crypto/jws.ts';
import { canonicalBytes } from '../crypto/jcs.ts';
import { isObject, type JsonObject, type JsonValue } from '../crypto/json-value.ts';
import { didOf } from '../did/parse.ts';
import type { SigningIdentity } from '../vc/identity.ts';
import { A2aCardError } from './errors.ts';
import { MANDATE_A2A_EXTENSION_URI, mandateExtension } from './extension.ts';
import { MAX_AGENT_CARD_BYTES, signedAgentCard, type AgentCard, type AgentCardSignature } from './payload.ts';

export interface SignAgentCardOptions {
  /**
   * The agent's credential chain, leaf first (the leaf's subject is `identity.did`), as a
   * presentation carries it: the card names it in the Mandate identity extension.
   */
  credentials: readonly JsonObject[];
}

/** A card signed by signAgentCard: one signature, the agent's. */
export type SignedAgentCard = AgentCard & { signatures: AgentCardSignature[] };

/** The first empty value SDKs would drop before signing (their `cleanEmpty`), and the spec's text keeps. */
function ambiguity(value: JsonValue, path: string): string | undefined {
  if (value === null || value === '') return path;
  if (Array.isArray(value)) {
    if (value.length === 0) return path;
    for (const [i, item] of value.entries()) {
      const found = ambiguity(item, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object') return undefined;
  const entries = Object.entries(value);
  if (entries.length === 0) return path;
  for (const [key, item] of entries) {
    const found = ambiguity(item, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Returns `card` with the Mandate identity extension (replacing any earlier one) and one
 * signature by `identity`: a detached JWS (RFC 7515 Appendix F) over the card's A2A v1.0
 * §8.4.1 canonical form, protected header `{"alg":"EdDSA","typ":"JOSE","kid":<DID URL>}`.
 * Signatures the card carried are dropped: the extension changes what they signed (another
 * party may countersign the result). Throws A2aCardError: A2A_CARD_MALFORMED for a card that
 * is not an A2A v1.0 card in JSON, A2A_CARD_AMBIGUOUS for one holding a member outside the
 * A2A v1.0 schema or an empty value (below): every member of a signed card is covered, the same
 * way by every verifier.
 */
export async function signAgentCard(
  card: AgentCard,
  identity: SigningIdentity,
  options: SignAgentCardOptions,
): Promise<SignedAgentCard> {
  if (didOf(identity.verificationMethod) !== identity.did || !identity.verificationMethod.includes('#'))
    throw new TypeError('identity.verificationMethod must be a DID URL with a fragment of identity.did');
  const credentials: JsonValue[] = [...(options.credentials as readonly JsonValue[])];
  if (credentials.length === 0)
    throw new TypeError('options.credentials must be the non-empty credential chain, leaf first');
  const capabilities = isObject(card.capabilities) ? card.capabilities : {};
  const others = Array.isArray(capabilities.extensions)
    ? capabilities.extensions.filter((e) => !(isObject(e) && e.uri === MANDATE_A2A_EXTENSION_URI))
    : [];
  const extension = mandateExtension({ did: identity.did, credentials });
  const { signatures: _dropped, ...unsigned } = card;
  const result: AgentCard = { ...unsigned, capabilities: { ...capabilities, extensions: [...others, extension] } };
  const uncovered: string[] = [];
  const signed = signedAgentCard(result, uncovered);
  // A member outside the v1.0 schema is in no signature: a client would read it unsigned (and
  // the SDKs read snake_case spellings such as `input_modes` that the schema's JSON names do not).
  if (uncovered.length > 0)
    throw new A2aCardError(
      'A2A_CARD_AMBIGUOUS',
      `${uncovered.slice(0, 5).join(', ')}: not an A2A v1.0 field, so no signature would cover it; leave it out`,
    );
  // The A2A SDKs (a2a-js `canonicalizeAgentCard`, a2a-python `_clean_empty`) also drop every
  // empty value and null the v1.0 text keeps (§8.4.1's example keeps `"description":""`):
  // a card without any verifies the same under both readings.
  const empty = ambiguity(signed, 'card');
  if (empty !== undefined)
    throw new A2aCardError(
      'A2A_CARD_AMBIGUOUS',
      `${empty} is empty or null: A2A SDKs and the A2A v1.0 text disagree on whether a signature covers it; give it a value or leave it out`,
    );
  const payload = canonicalBytes(signed, { maxBytes: MAX_AGENT_CARD_BYTES });
  const jws = await signDetachedJws(
    { alg: 'EdDSA', typ: 'JOSE', kid: identity.verificationMethod },
    payload,
    identity.signer,
  );
  return { ...result, signatures: [{ protected: jws.protected, signature: jws.signature }] };
}
