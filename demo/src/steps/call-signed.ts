/**
 * Step 5, second button: the sub-agent signs its requests (RFC 9421, its own Ed25519 key) and
 * names its chain — in full first, by digest afterwards (docs/protocol.md §Signed requests).
 * The provider's server verifies them (`agentAuth`): the service worker verifies presentations
 * only, so the signed copy of the API, `/signed-api/files/*`, is outside its table.
 */
import { identityRequestSigner } from '../../../wallet/http-signatures/sign.ts';
import { signChainedRequest } from '../../../wallet/vc/chain-request.ts';
import { renderJson, renderOutcome } from '../dom.ts';
import { getJson, reasonOf } from '../http.ts';
import { fail, type Story, type StepView } from '../story.ts';

const SIGNED_PATH = '/signed-api/files/q3-report';

interface SignedCall {
  sent: Record<string, string>;
  status: number;
  body: unknown;
}

/** The signature and chain headers as sent (the full chain shortened for display). */
function shownHeaders(request: Request): Record<string, string> {
  const shown: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    shown[name] = name === 'mandate-chain' ? `${value.slice(0, 48)}… (${value.length} characters)` : value;
  });
  return shown;
}

async function send(request: Request): Promise<SignedCall> {
  const response = await fetch(request.clone(), { cache: 'no-store' });
  return { sent: shownHeaders(request), status: response.status, body: await getJson(response) };
}

export async function callSigned(story: Story, view: StepView): Promise<void> {
  const sub = story.state.sub ?? fail('delegate to the sub-agent first (step 4)');
  const chain = story.state.subChain ?? fail('delegate to the sub-agent first (step 4)');
  const signer = identityRequestSigner(sub.identity);
  const url = new URL(SIGNED_PATH, location.origin);
  const first = await signChainedRequest(new Request(url), signer, chain);
  const full = await send(first);
  const byDigest = await send(await signChainedRequest(new Request(url), signer, chain, { byDigest: true }));
  // The first request, captured and sent again: its nonce was recorded.
  const replay = await send(first);
  const approved = full.status === 200 && byDigest.status === 200;
  const replayRefused = replay.status === 401 && reasonOf(replay.body) === 'HTTP_SIGNATURE_REPLAYED';
  view.body.append(
    renderOutcome(
      'outcome-5b',
      approved && replayRefused ? 'approved' : 'denied',
      approved && replayRefused
        ? `✓ signed requests approved by the provider's server — ${full.status} with the chain in full, ${byDigest.status} by digest; the replayed one refused ${replay.status} ${reasonOf(replay.body) ?? ''}`
        : `✗ full chain ${full.status}, by digest ${byDigest.status}, replay ${replay.status} ${reasonOf(replay.body) ?? ''}`,
    ),
    renderJson(`GET ${SIGNED_PATH}, chain in full: the headers sent`, full.sent),
    renderJson(`the API's answer (${full.status})`, full.body, true),
    renderJson(`GET ${SIGNED_PATH}, chain by digest: the headers sent`, byDigest.sent),
    renderJson(`the API's answer (${byDigest.status})`, byDigest.body),
    renderJson(`the first request replayed: the answer (${replay.status})`, replay.body),
  );
  if (!approved || !replayRefused) fail('the signed requests were not judged as expected');
}
