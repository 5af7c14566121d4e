/**
 * What binds an exchanged presentation to the client that exchanges it (docs/oauth.md §Binding
 * the presentation to the client), so that whoever merely sees a presentation — a proxy, a log,
 * the resource server it was made for — cannot exchange it for a token acting as its holder:
 *
 * - with a DPoP proof (RFC 9449), the presentation's proof `challenge` must be the proof key's
 *   RFC 7638 SHA-256 JWK thumbprint, base64url (the token's `cnf.jkt`), either exactly or
 *   followed by `.` and any suffix the client picks (`<jkt>.<uuid>`): a challenge is answered
 *   once per resource, so a client that keeps its DPoP key makes each exchange's challenge
 *   unique with the suffix. Only the key's holder can send a proof under it;
 * - without one, the client must authenticate as the presentation's holder with
 *   `private_key_jwt` (RFC 7523), which only the holder's key can sign.
 *
 * Both are checked before the presentation is verified: a refused attempt spends nothing, and
 * the holder can still exchange its presentation.
 */
import type { JsonValue } from '../../../wallet/crypto/json-value.ts';
import type { DpopBinding } from './dpop.ts';
import { refuseClaimed } from './errors.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The holder the presentation names (unverified: verifyPresentation checks its signature). */
export function claimedHolder(presentation: JsonValue): string | undefined {
  if (!isObject(presentation)) return undefined;
  const { holder } = presentation;
  if (typeof holder === 'string') return holder;
  return isObject(holder) && typeof holder.id === 'string' ? holder.id : undefined;
}

/** The presentation proof's `challenge` (unverified: the verification holds it to this value). */
function challengeOf(presentation: JsonValue): string | undefined {
  const proof = isObject(presentation) ? presentation.proof : undefined;
  return isObject(proof) && typeof proof.challenge === 'string' ? proof.challenge : undefined;
}

/** True when `challenge` is bound to the DPoP key `jkt`: `<jkt>` or `<jkt>.<suffix>`. */
export function boundToKey(challenge: string, jkt: string): boolean {
  return challenge === jkt || (challenge.startsWith(`${jkt}.`) && challenge.length > jkt.length + 1);
}

/**
 * With DPoP: the challenge the verification must then find (refuses PRESENTATION_NOT_BOUND).
 * Without: undefined, once the client has authenticated as the holder (refuses
 * HOLDER_AUTH_REQUIRED when it did not try; the assertion is checked by the grant).
 */
export function requiredChallenge(
  presentation: JsonValue,
  binding: DpopBinding | undefined,
  clientAssertion: string | undefined,
): string | undefined {
  const holder = claimedHolder(presentation)?.slice(0, 256);
  if (binding === undefined) {
    if (clientAssertion === undefined)
      refuseClaimed(
        'invalid_client',
        'HOLDER_AUTH_REQUIRED',
        'without a DPoP proof, authenticate as the presentation holder (private_key_jwt, RFC 7523): a presentation alone does not show who sends it',
        holder,
      );
    return undefined;
  }
  const challenge = challengeOf(presentation);
  if (challenge === undefined || !boundToKey(challenge, binding.jkt)) {
    const refusal = `the presentation's challenge must be the DPoP key's RFC 7638 thumbprint (${binding.jkt}), alone or followed by "."`;
    refuseClaimed('invalid_request', 'PRESENTATION_NOT_BOUND', refusal, holder);
  }
  return challenge;
}
