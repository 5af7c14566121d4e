/**
 * Reading the issuer's answers without trusting their shape: each guard checks the members a
 * caller relies on (the rest is the issuer's word, docs/api.md) and types the body as the
 * contract's type (wallet/contract). A body that fails is `RESPONSE_INVALID`. Type imports only:
 * no schema library is bundled with the client.
 */
import type { JsonObject, JsonValue } from '../crypto/json-value.ts';
import type { Ed25519PublicJwk } from '../crypto/jwt.ts';
import type { StatusListInfo } from '../contract/status-lists.ts';
import type { AgentCredential, VerifiablePresentation } from '../vc/types.ts';
import { IssuerClientError } from './errors.ts';

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function invalid(what: string): IssuerClientError {
  return new IssuerClientError('RESPONSE_INVALID', `the issuer's answer is not ${what}`);
}

export function asObject(json: JsonValue, what: string): JsonObject {
  if (!isObject(json)) throw invalid(what);
  return json;
}

export function hasStrings(object: JsonObject, members: readonly string[]): boolean {
  return members.every((member) => typeof object[member] === 'string');
}

export function requireStrings(object: JsonObject, members: readonly string[], what: string): void {
  if (!hasStrings(object, members)) throw invalid(what);
}

/** An AgentCredential whose subject is `subjectDid`. */
export function isAgentCredentialOf(value: unknown, subjectDid: unknown): value is JsonObject & AgentCredential {
  return isObject(value) && isObject(value.credentialSubject) && value.credentialSubject.id === subjectDid;
}

/** The issuer's word that this is a presentation, checked where it matters: `holder`'s, with credentials. */
export function isPresentationBy(body: VerifiablePresentation, holder: string): boolean {
  const { holder: by, verifiableCredential }: { holder: unknown; verifiableCredential: unknown } = body;
  return by === holder && Array.isArray(verifiableCredential);
}

export function isStatusListInfo(body: JsonObject): body is JsonObject & StatusListInfo {
  return hasStrings(body, ['listId', 'purpose', 'url']);
}

/** RFC 8037 §2: an OKP Ed25519 public key (verifySessionToken checks it in full). */
export function isEd25519PublicJwk(body: JsonObject): body is JsonObject & Ed25519PublicJwk {
  return body.kty === 'OKP' && body.crv === 'Ed25519' && typeof body.x === 'string';
}
