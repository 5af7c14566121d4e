/** A call the verifier must refuse: shown with its checks, reported to the provider, the step failed otherwise. */
import { renderChecks, renderJson, renderOutcome } from '../dom.ts';
import { postJson, reasonOf } from '../http.ts';
import { fail, type StepView } from '../story.ts';
import type { ApiCall } from '../verifier.ts';
import { verifierChecks } from '../verifier-checks.ts';

/** The refusal happened in the worker: the provider records it in the issuer's audit trail. */
async function recordRefusal(reason: string, action: string, agentDid?: string): Promise<unknown> {
  const { json } = await postJson('/provider/refusals', { reason, action, ...(agentDid ? { agentDid } : {}) });
  return json;
}

export interface ExpectedRefusal {
  outcomeId: string;
  /** The reason code the verifier must give. */
  expected: string;
  /** The refused request, as the provider records it. */
  action: string;
  agentDid: string;
  /** Shown after the checks. */
  extra: HTMLElement[];
}

/** Shows a call that must be refused with `expected`, reports the refusal to the provider, and fails the step otherwise. */
export async function expectRefusal(view: StepView, call: ApiCall, refusal: ExpectedRefusal): Promise<void> {
  const { outcomeId, expected } = refusal;
  const reason = reasonOf(call.body) ?? 'none';
  const denied = call.status === 403 && reason === expected;
  const audit = call.status === 200 ? undefined : await recordRefusal(reason, refusal.action, refusal.agentDid);
  view.body.append(
    renderOutcome(
      outcomeId,
      call.status === 200 ? 'approved' : 'denied',
      call.status === 200
        ? `✓ approved — expected ${expected}`
        : `✗ denied ${reason} — ${call.status}${denied ? ' (as expected)' : ''}`,
    ),
    renderChecks(verifierChecks(call.report?.checks ?? [])),
    ...refusal.extra,
    renderJson(`the worker's refusal (${call.status}) — the request never left the browser`, call.body, true),
    renderJson('the provider records the refusal in the issuer’s audit trail', audit ?? 'not recorded'),
  );
  if (!denied) fail(`expected ${expected}, got ${call.status} ${reason}`);
}
