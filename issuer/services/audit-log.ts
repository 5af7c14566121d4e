/**
 * Reading the audit log (GET /v1/audit) and re-checking its hash chain (GET /v1/audit/verify):
 * operator acts; the log itself is issuer/audit.ts.
 */
import type { AuditListQuery, AuditPage } from '../../wallet/contract/audit.ts';
import type { AuditQuery as AuditLogQuery, ChainVerdict } from '../audit.ts';
import type { IssuerDeps } from '../deps.ts';
import { refuse } from '../refusal.ts';

type AuditDeps = Pick<IssuerDeps, 'audit'>;

function epoch(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Date.parse(value);
}

/** `GET /v1/audit`'s query as the audit log reads it; VALIDATION_FAILED when the window is inverted. */
function logQuery(q: AuditListQuery): AuditLogQuery {
  const from = epoch(q.from);
  const to = epoch(q.to);
  if (from !== undefined && to !== undefined && from > to) throw refuse('VALIDATION_FAILED', '"from" is after "to"');
  return {
    limit: q.limit,
    order: q.order,
    ...(q.agent === undefined ? {} : { agentDid: q.agent }),
    ...(q.event === undefined ? {} : { event: q.event }),
    ...(q.reported === undefined ? {} : { reported: q.reported }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
  };
}

/** One page of audit records matching the query. */
export function auditPage(deps: AuditDeps, query: AuditListQuery): Promise<AuditPage> {
  return deps.audit.list(logQuery(query));
}

/** The whole hash chain re-checked (one run at a time, issuer/audit.ts). */
export function auditChainVerdict(deps: AuditDeps): Promise<ChainVerdict> {
  return deps.audit.verifyChain();
}
