/**
 * The audit log (wallet/contract/audit.ts): reading it and re-checking its chain
 * (services/audit-log.ts), and providers' signed events (services/audit-events.ts).
 */
import { auditEndpoints } from '../../wallet/contract/audit.ts';
import type { IssuerContext } from '../boot.ts';
import type { HandlersOf } from '../http/mount.ts';
import { createProviderEventRecorder } from '../services/audit-events.ts';
import { auditChainVerdict, auditPage } from '../services/audit-log.ts';

export function auditHandlers(ctx: IssuerContext): HandlersOf<typeof auditEndpoints> {
  const providerEvents = createProviderEventRecorder(ctx);
  return {
    listAudit: ({ query }) => auditPage(ctx, query),
    recordAuditEvent: ({ body }) => providerEvents.record(body),
    verifyAuditChain: () => auditChainVerdict(ctx),
  };
}
