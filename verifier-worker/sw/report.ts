/**
 * What the worker tells pages about its decisions (for logs, dashboards and the demo), on a
 * BroadcastChannel every page of the origin can listen to (HTML §9.5 "Broadcasting to other
 * browsing contexts"). A report is built from the verdict only: never the Authorization
 * header, the presentation, the challenge or the query string (which may carry tokens), so
 * anything that listens learns who acted and how it was decided, nothing it could replay.
 */

import type { CheckOutcome } from '../../wallet/vc/verify.ts';

export const REPORT_TYPE = 'mandate-verification';

export interface VerificationReport {
  type: typeof REPORT_TYPE;
  decision: 'allow' | 'deny';
  /** The status the page received: the network's when allowed, the refusal's when denied. */
  status: number;
  method: string;
  /** The request's path alone: its query string is left out. */
  path: string;
  /** The verified agent (allowed requests only: a refused presentation proves no identity). */
  agentDid?: string;
  vpId?: string;
  effectiveScopes?: string[];
  /** The reason code of a refusal. */
  reason?: string;
  message?: string;
  /** Each check the verifier ran, in order; a refusal's last one failed (docs/protocol.md §Verification). */
  checks: CheckOutcome[];
  /** Time spent verifying, in ms (the network round trip of an allowed request excluded). */
  durationMs: number;
  /** When the decision was made (ISO 8601). */
  at: string;
}

export type Reporter = (report: VerificationReport) => void;

/** Posts reports on the BroadcastChannel `name`; a reporter that does nothing when `name` is null. */
export function broadcastReporter(name: string | null): Reporter {
  if (name === null || typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(name);
  return (report) => {
    try {
      channel.postMessage(report);
    } catch {
      // A report is best effort: it never changes or delays the decision.
    }
  };
}

/** True when `value` is a report from the worker (for listeners on a shared channel). */
export function isVerificationReport(value: unknown): value is VerificationReport {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === REPORT_TYPE;
}
