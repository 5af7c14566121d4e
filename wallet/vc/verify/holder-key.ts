/**
 * The key a signed request must be signed with: an `authentication` key of the chain leaf's
 * subject (docs/protocol.md §The signing key), named by its `keyid` — a DID URL of the holder,
 * or the key's RFC 7638 JWK thumbprint (Web Bot Auth's key id). Read from the verification's
 * own resolution of the holder's DID, refreshed once when a cached document lacks the key.
 */
import { ed25519Thumbprint } from '../../crypto/jwt.ts';
import type { DidResolutionResult } from '../../did/types.ts';
import { absoluteDidUrl, keyFromResolution } from '../../did/verification-method.ts';
import { VerificationError } from '../reasons.ts';
import type { Settled } from './settled.ts';
import type { ChainVerification } from './verification.ts';

/** The holder's `authentication` key with thumbprint `keyid` in `result`, or undefined. */
function keyByThumbprint(result: DidResolutionResult, holder: string, keyid: string, now: number) {
  for (const entry of result.didDocument?.authentication ?? []) {
    const id = absoluteDidUrl(typeof entry === 'string' ? entry : entry.id, holder);
    let key: Uint8Array;
    try {
      key = keyFromResolution(result, holder, id, 'authentication', now);
    } catch {
      continue; // a method that cannot sign (another key type, revoked) is no candidate
    }
    if (ed25519Thumbprint(key) === keyid) return key; // RFC 7638, as Web Bot Auth names keys
  }
  return undefined;
}

async function settledOf(
  resolution: Settled<DidResolutionResult> | Promise<Settled<DidResolutionResult>>,
  holder: string,
) {
  const settled = resolution instanceof Promise ? await resolution : resolution;
  if (!settled.ok)
    throw new VerificationError('DID_RESOLUTION_FAILED', `${holder} could not be resolved (resolver failed)`);
  return settled.value;
}

/**
 * The 32-byte key `keyid` names, which must be an `authentication` key of `v.holder`; throws
 * KEY_NOT_AUTHORIZED (or the DID reason codes) otherwise.
 */
export async function holderKey(v: ChainVerification, keyid: string): Promise<Uint8Array> {
  const holder = v.holder;
  // A DID URL: the same lookup as a presentation's proof (one DID's keys, one refresh).
  if (keyid.startsWith('did:')) return v.keysOf(holder)(keyid, 'authentication');
  const result = await settledOf(v.resolutions.of(holder), holder);
  const { error } = result.didResolutionMetadata;
  if (error !== undefined)
    throw new VerificationError('DID_RESOLUTION_FAILED', `${holder} could not be resolved (${String(error)})`);
  if (result.didDocumentMetadata.deactivated === true)
    throw new VerificationError('DID_DEACTIVATED', `${holder} is deactivated`);
  const found = keyByThumbprint(result, holder, keyid, v.now);
  if (found !== undefined) return found;
  // A key rotated in since the document was cached: look once more (the resolver limits how often).
  const again = result.didResolutionMetadata.cached === true ? v.resolutions.refreshed(holder) : undefined;
  const fresh = again === undefined ? undefined : await settledOf(again, holder);
  const refound = fresh === undefined ? undefined : keyByThumbprint(fresh, holder, keyid, v.now);
  if (refound !== undefined) return refound;
  throw new VerificationError(
    'KEY_NOT_AUTHORIZED',
    `the keyid is the thumbprint of no authentication key of ${holder}, the chain's holder`,
  );
}
