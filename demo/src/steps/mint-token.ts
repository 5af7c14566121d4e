/** Step 1: the demo runner mints an enrollment token with the issuer's admin key, server-side. */
import { renderChecks, renderJson } from '../dom.ts';
import { postJson } from '../http.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';

interface Minted {
  request: object;
  response: { tokenId: string; token: string; expiresAt: string };
}

async function mintToken(story: Story, view: StepView): Promise<void> {
  const { status: code, json } = await postJson('/operator/enrollment-token', {});
  if (code !== 201) fail(`the runner answered ${code}`);
  const minted = json as Minted;
  story.state.token = minted.response.token;
  view.body.append(
    renderChecks([
      {
        check: 'minted by the operator with the admin key, server-side',
        ok: true,
        detail: 'POST /v1/enrollment-tokens',
      },
      {
        check: 'single use, expires',
        ok: Date.parse(minted.response.expiresAt) > Date.now(),
        detail: minted.response.expiresAt,
      },
    ]),
    renderJson('POST /v1/enrollment-tokens — request', minted.request),
    renderJson('response (the token is shown once)', minted.response, true),
  );
}

export function mintTokenStep(story: Story): StepDefinition {
  return {
    title: '1 · The operator mints an enrollment token',
    text: 'The demo runner mints it server-side with the issuer’s admin key (which never reaches this page) and hands the page the single-use token: scopes files:read files:write, delegation depth 2, domains limited to the provider’s service and its MCP server.',
    buttons: [{ label: 'Mint enrollment token', run: (view) => mintToken(story, view) }],
  };
}
