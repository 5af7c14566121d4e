/**
 * The Mandate identity extension of an A2A Agent Card (A2A v1.0 §4.4.4 AgentExtension, declared
 * in `capabilities.extensions`): it names the agent's DID and carries the agent's credential
 * chain inline, so a client checks the agent's authority from the card alone, with no further
 * fetch (why inline: docs/a2a.md §The identity extension).
 */
import { isObject, type JsonObject, type JsonValue } from '../crypto/json-value.ts';
import { tryParseDid } from '../did/parse.ts';
import { A2aCardError } from './errors.ts';
import type { AgentExtension } from './payload.ts';

/** The extension's URI (A2A v1.0 §4.6.1: an extension is identified by a URI). */
export const MANDATE_A2A_EXTENSION_URI = 'https://mandate.dev/a2a/identity/v1';

/** What the extension says, read from a card. */
export interface MandateCardIdentity {
  /** The agent's DID: the card's signing key is one of its `assertionMethod` keys. */
  did: string;
  /** The agent's credential chain, leaf first (a presentation's `verifiableCredential` order). */
  credentials: JsonValue[];
}

/** The extension entry for `identity`: clients that do not know it may ignore it (`required` false). */
export function mandateExtension(identity: MandateCardIdentity): AgentExtension {
  return {
    uri: MANDATE_A2A_EXTENSION_URI,
    description: "Mandate: the agent's DID and its verifiable credential chain (leaf first)",
    params: { did: identity.did, credentials: identity.credentials },
  };
}

function malformed(message: string): never {
  throw new A2aCardError('A2A_EXTENSION_MALFORMED', message);
}

/**
 * The identity the extension of `card` names (the signed form of the card, signedAgentCard's).
 * Throws A2aCardError A2A_EXTENSION_MISSING or A2A_EXTENSION_MALFORMED.
 */
export function readMandateExtension(card: JsonObject): MandateCardIdentity {
  const capabilities = card.capabilities;
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  const ours = Array.isArray(extensions)
    ? extensions.filter((e) => isObject(e) && e.uri === MANDATE_A2A_EXTENSION_URI)
    : [];
  if (ours.length === 0)
    throw new A2aCardError('A2A_EXTENSION_MISSING', `the card declares no ${MANDATE_A2A_EXTENSION_URI} extension`);
  // Two entries could name two DIDs: which one the card speaks for would be the reader's guess.
  if (ours.length > 1) malformed('the card declares the Mandate identity extension more than once');
  const params = (ours[0] as JsonObject).params;
  if (!isObject(params)) malformed('the Mandate identity extension has no params object');
  const { did, credentials } = params;
  if (typeof did !== 'string' || 'error' in tryParseDid(did, { bare: true }))
    malformed('the Mandate identity extension names no DID (params.did)');
  if (!Array.isArray(credentials) || credentials.length === 0)
    malformed('the Mandate identity extension carries no credentials (params.credentials)');
  return { did, credentials };
}
