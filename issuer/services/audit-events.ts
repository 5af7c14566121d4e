/**
 * Provider audit events (`POST /v1/audit/events`): a service provider records what it
 * authorized, what the agent did and how it ended, in the issuer's hash-chained log, signed so
 * the record is attributable to the provider and to nobody else.
 *
 * The body is the signed event itself: a Data Integrity `eddsa-jcs-2022` proof (VC Data
 * Integrity §4.2) with proofPurpose `assertionMethod` (or `authentication`) by a key of the
 * `provider` DID in that relationship. Replays are refused: each event `id` (urn:uuid) is
 * accepted once (a receipt row, written in the same transaction as the audit record), and the
 * proof must have been created within FRESHNESS_MS of now, so an old event cannot be posted
 * after its receipt is gone from a restored backup.
 *
 * The whole signed event is kept in the audit record's data, so anyone can re-verify it later.
 */
import { parseDateTimeStamp, verifyProof } from '../../wallet/crypto/data-integrity.ts';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { assertSafeJson } from '../../wallet/crypto/json-safe.ts';
import type { ProviderEvent, RecordedAuditEvent, SignedAuditEvent } from '../../wallet/contract/audit.ts';
import type { AuditRecord } from '../audit.ts';
import type { IssuerDeps } from '../deps.ts';
import { Refusal, refuse } from '../refusal.ts';
import { wireObject } from './wire.ts';
import { controllerKeyResolver } from './controller-keys.ts';

export { PROVIDER_EVENTS, type ProviderEvent, type SignedAuditEvent } from '../../wallet/contract/audit.ts';
/** How far from now the event's proof `created` may be. */
export const FRESHNESS_MS = 5 * 60_000;
/** Canonical size cap of a signed event (it is stored whole in the audit log). */
export const MAX_EVENT_BYTES = 8 * 1024;

export type RecordedProviderEvent = RecordedAuditEvent;

const AUDIT_EVENT_NAMES: Record<ProviderEvent, string> = {
  authorization: 'PROVIDER_AUTHORIZATION',
  action: 'PROVIDER_ACTION',
  result: 'PROVIDER_RESULT',
};

/** A provider event's proof that does not hold, as the refusal that names why. */
function refuseProof(error: unknown, provider: string): never {
  if (isMandateError(error)) {
    switch (error.code) {
      case 'DID_RESOLUTION_FAILED':
        throw refuse('DID_RESOLUTION_FAILED', `the provider DID could not be resolved: ${error.message}`);
      case 'DID_DEACTIVATED':
        throw refuse('DID_DEACTIVATED', `${provider} is deactivated`);
      case 'KEY_NOT_AUTHORIZED':
      case 'INVALID_PUBLIC_KEY':
        throw refuse('KEY_NOT_AUTHORIZED', error.message);
      case 'PROOF_MALFORMED':
      case 'PROOF_MISSING':
      case 'CRYPTOSUITE_UNSUPPORTED':
        throw refuse('VALIDATION_FAILED', `proof: ${error.message}`);
      default:
        throw refuse('EVENT_SIGNATURE_INVALID', `the event signature does not verify (${error.code})`);
    }
  }
  throw refuse('EVENT_SIGNATURE_INVALID', 'the event signature does not verify');
}

export interface ProviderEventRecorder {
  record(event: SignedAuditEvent): Promise<RecordedProviderEvent>;
}

export function createProviderEventRecorder(
  deps: Pick<IssuerDeps, 'stores' | 'resolver' | 'audit' | 'now'>,
): ProviderEventRecorder {
  return {
    async record(event) {
      try {
        assertSafeJson(event, { maxBytes: MAX_EVENT_BYTES });
      } catch (error) {
        throw refuse('VALIDATION_FAILED', `event: ${(error as Error).message}`);
      }
      const purpose = event.proof.proofPurpose;
      if (purpose !== 'assertionMethod' && purpose !== 'authentication') {
        throw refuse('VALIDATION_FAILED', 'proof.proofPurpose must be "assertionMethod" or "authentication"');
      }
      const created = parseDateTimeStamp(event.proof.created);
      if (created === undefined) throw refuse('VALIDATION_FAILED', 'proof.created must be an XML Schema dateTimeStamp');
      const now = deps.now();
      if (Math.abs(now - created) > FRESHNESS_MS) {
        throw refuse(
          'EVENT_STALE',
          `the event was signed at ${typeof event.proof.created === 'string' ? event.proof.created : ''}, more than ${FRESHNESS_MS / 60_000} minutes from now`,
        );
      }
      try {
        await verifyProof(event, {
          resolveKey: controllerKeyResolver(deps, event.provider, (vm) =>
            refuse('KEY_NOT_AUTHORIZED', `${vm} is not a key of the provider ${event.provider}`),
          ),
          expectedProofPurpose: purpose,
          // An authentication proof must name a challenge (VC-DI §2.1); the event id is the replay guard here.
          ...(purpose === 'authentication'
            ? { expectedChallenge: typeof event.proof.challenge === 'string' ? event.proof.challenge : '' }
            : {}),
          now: new Date(now),
        });
      } catch (error) {
        if (error instanceof Refusal) throw error; // KEY_NOT_AUTHORIZED from controllerKeyResolver
        refuseProof(error, event.provider);
      }
      const recorded: AuditRecord = await deps.stores.transaction(async (tx) => {
        const entry = await deps.audit.record(
          {
            event: AUDIT_EVENT_NAMES[event.event],
            actor: `provider:${event.provider}`,
            ...(event.agentDid === undefined ? {} : { agentDid: event.agentDid }),
            ...(event.vpId === undefined ? {} : { vpId: event.vpId }),
            ...(event.result === undefined ? {} : { reason: event.result }),
            data: { eventId: event.id, signedEvent: wireObject(event) },
          },
          tx,
        );
        // Claimed after the append so the receipt can name the record; a duplicate rolls both back.
        if (!(await tx.auditReceipts.claim(event.id, event.provider, entry.id, now)))
          throw refuse('EVENT_DUPLICATE', `event ${event.id} was already recorded`);
        return entry;
      });
      return { recorded: true, eventId: event.id, seq: recorded.seq, auditId: recorded.id, hash: recorded.hash };
    },
  };
}
