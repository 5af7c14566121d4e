/** Step 5: the sub-agent calls the provider's API; the service-worker verifier approves it in this browser. */
import { reasonOf } from '../http.ts';
import { renderChecks, renderJson, renderOutcome } from '../dom.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';
import { verifierChecks } from '../verifier-checks.ts';
import { callSigned } from './call-signed.ts';
import { presentRead } from './present-read.ts';

async function callApi(story: Story, view: StepView): Promise<void> {
  const sub = story.state.sub ?? fail('delegate to the sub-agent first (step 4)');
  const call = await story.verifier.call('GET', '/api/files/q3-report', presentRead(story, sub));
  const approved = call.status === 200 && call.report?.decision === 'allow';
  const scopes = call.report?.effectiveScopes ?? [];
  view.body.append(
    renderOutcome(
      'outcome-5a',
      approved ? 'approved' : 'denied',
      approved
        ? `✓ approved — ${call.status}, effective scopes: ${scopes.join(' ')}`
        : `✗ denied — ${call.status} ${reasonOf(call.body) ?? ''}`,
    ),
    renderChecks(verifierChecks(call.report?.checks ?? [])),
    renderJson('the worker’s report', call.report ?? 'no report'),
    renderJson('GET /.well-known/mandate/challenge (answered by the worker)', call.challenge),
    renderJson('Authorization: VP … — the presentation', call.vp),
    renderJson(`the API's answer (${call.status}): what reached the provider`, call.body, true),
  );
  if (!approved) fail('the call was not approved');
}

export function callApiStep(story: Story): StepDefinition {
  return {
    title: '5 · The sub-agent calls the provider’s API through the service-worker verifier',
    text: 'GET /api/files/q3-report needs files:read. The sub-agent fetches a nonce from the worker, presents its chain and the grant, and the worker verifies in this browser before the request leaves it. Or, with no presentation and no nonce, it signs each request with its own key (RFC 9421) naming its chain — in full once, then by digest — and the provider’s server verifies the signature and the chain (agentAuth); a replayed request is refused.',
    buttons: [
      { label: 'Call the API', run: (view) => callApi(story, view) },
      { label: 'Call it with signed requests', run: (view) => callSigned(story, view) },
    ],
  };
}
