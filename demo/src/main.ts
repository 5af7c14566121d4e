/**
 * The demo page: the seven steps of docs/demo.md, each run by a button, each showing the JSON
 * exchanged and the checks made (✓/✗). Three wallets live in this browser, keys in IndexedDB:
 * the agent, the user (who consents) and the sub-agent. The service-worker verifier guards
 * `/api/files/*` of this origin; the page lists the checks the worker reports for each call,
 * one by one, beside the worker's answer.
 */
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { createIndexedDbCredentialStore } from '../../wallet/client/credential-store.ts';
import { IssuerClient } from '../../wallet/client/issuer-client.ts';
import { createIndexedDbKeyStore } from '../../wallet/keystore/indexeddb.ts';
import { credentialDigest, validUntilOf } from '../../wallet/vc/delegation.ts';
import { within } from '../../wallet/vc/scopes.ts';
import { createConsent } from '../../wallet/vc/grant.ts';
import { newUrnUuid } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import { MANDATE_CONTEXTS } from '../../wallet/vc/context.ts';
import { encodePresentationHeader } from '../../wallet/vc/transport.ts';
import type { CheckOutcome } from '../../wallet/vc/verify.ts';
import type {
  AgentCredential,
  DelegatedAgentCredential,
  DelegationGrantCredential,
  VerifiablePresentation,
} from '../../wallet/vc/types.ts';
import { Wallet } from '../../wallet/wallet.ts';
import { registerVerifier } from '../../verifier-worker/sw/register.ts';
import type { VerificationReport } from '../../verifier-worker/sw/report.ts';

interface DemoConfig {
  issuerDid: string;
  issuerUrl: string;
  issuerRelay: string;
  providerDid: string;
  target: string;
  scopes: string[];
}

interface Check {
  check: string;
  ok: boolean | 'skipped';
  detail?: string;
}

interface StepView {
  section: HTMLElement;
  buttons: HTMLButtonElement[];
  body: HTMLElement;
}

const CHALLENGE_PATH = '/.well-known/mandate/challenge';
/** The verifier's checks in the order it runs them (wallet/vc/verify.ts). */
const CHECK_ORDER = ['presentation', 'dids', 'credentials', 'chain', 'scopes', 'status', 'replay'] as const;
const CHECK_LABELS: Record<(typeof CHECK_ORDER)[number], string> = {
  presentation: "presentation: holder's signature, challenge, domain = target, lifetime",
  dids: 'DIDs resolved (issuer did:web, agents did:key, provider, user)',
  credentials: "credentials' signatures and validity",
  chain: 'delegation chain: root from the trusted issuer, each link narrower (scopes, depth, domains, time); grants',
  scopes: 'scopes: effective scopes cover the route; target in the leaf’s domains',
  status: 'status lists: not revoked (issuer’s list and provider’s list)',
  replay: 'replay: challenge and presentation id not seen before (last: a refusal uses up nothing)',
};

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderChecks(checks: readonly Check[]): HTMLElement {
  const list = element('ul', { class: 'checks' });
  for (const c of checks) {
    const item = element('li', { 'data-ok': String(c.ok) });
    item.append(
      element('span', { class: 'mark', 'aria-hidden': 'true' }, c.ok === true ? '✓' : c.ok === false ? '✗' : '–'),
    );
    item.append(element('span', {}, `${c.ok === true ? '' : c.ok === false ? 'FAILED: ' : 'not reached: '}${c.check}`));
    if (c.detail) item.append(element('span', { class: 'detail' }, ` — ${c.detail}`));
    list.append(item);
  }
  return list;
}

function renderJson(title: string, value: unknown, open = false): HTMLElement {
  const details = element('details');
  if (open) details.open = true;
  details.append(element('summary', {}, title));
  details.append(element('pre', {}, JSON.stringify(value, null, 2)));
  return details;
}

function renderOutcome(id: string, verdict: 'approved' | 'denied', text: string): HTMLElement {
  return element('p', { class: 'outcome', id, 'data-verdict': verdict, role: 'status' }, text);
}

/** The verifier's own outcomes as ✓/✗ lines, checks it did not reach shown as such. */
function verifierChecks(outcomes: readonly CheckOutcome[]): Check[] {
  return CHECK_ORDER.map((name) => {
    const outcome = outcomes.find((o) => o.check === name);
    if (!outcome) return { check: CHECK_LABELS[name], ok: 'skipped' as const };
    return {
      check: CHECK_LABELS[name],
      ok: outcome.ok,
      ...(outcome.ok ? {} : { detail: `${outcome.reason ?? ''}: ${outcome.message ?? ''}` }),
    };
  });
}

async function getJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function postJson(path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await getJson(response) };
}

function fail(message: string): never {
  throw new Error(message);
}

async function main(): Promise<void> {
  const config = (await (await fetch('/demo/config.json')).json()) as DemoConfig;
  const runId = crypto.randomUUID().slice(0, 8);
  const keyStore = createIndexedDbKeyStore({ name: `mandate-demo-keys-${runId}` });
  const openWallet = (role: string) =>
    Wallet.open({
      keyStore,
      keyId: role,
      credentialStore: createIndexedDbCredentialStore({ name: `mandate-demo-credentials-${role}-${runId}` }),
    });

  const parties = document.getElementById('parties') as HTMLElement;
  const addParty = (name: string, value: string) => {
    parties.append(element('dt', {}, name), element('dd', { 'data-party': name }, value));
  };
  addParty('issuer', config.issuerDid);
  addParty('service provider', config.providerDid);
  addParty('target (proof domain)', config.target);

  // Reports of the worker's decisions, newest last (never a presentation: report.ts).
  const reports: VerificationReport[] = [];
  const status = document.getElementById('verifier-status') as HTMLElement;
  const verifierConfig = {
    target: config.target,
    trustedIssuers: [config.issuerDid],
    trustedGrantIssuers: [config.providerDid],
    routes: [
      { path: '/api/files/*', method: 'GET', scopes: ['files:read'] },
      { path: '/api/files/*', method: 'POST', scopes: ['files:write'] },
    ],
    challenge: 'endpoint' as const,
    // The issuer and the provider are http://127.0.0.1 in this demo.
    allowHttpLoopback: true,
  };
  const verifierReady = registerVerifier({
    scriptUrl: '/verifier-sw.js',
    config: verifierConfig,
    onReport: (r) => reports.push(r),
  }).then(
    () => {
      status.textContent = 'Service-worker verifier: guarding /api/files/* of this page';
      status.dataset.state = 'ready';
    },
    (error: unknown) => {
      status.textContent = `Service-worker verifier: not available (${error instanceof Error ? error.message : String(error)})`;
      status.dataset.state = 'failed';
      throw error;
    },
  );

  const state: {
    token?: string;
    agent?: Wallet;
    user?: Wallet;
    sub?: Wallet;
    agentCredential?: AgentCredential;
    grant?: DelegationGrantCredential;
    subCredential?: DelegatedAgentCredential;
  } = {};

  /** One call of the provider's API through the worker: fresh challenge, presentation, answer. */
  const callApi = async (
    method: 'GET' | 'POST',
    path: string,
    present: (challenge: string) => Promise<VerifiablePresentation>,
  ) => {
    await verifierReady;
    const challengeResponse = await fetch(CHALLENGE_PATH, { cache: 'no-store' });
    const challenge = (await challengeResponse.json()) as { challenge: string; expiresAt: string };
    const vp = await present(challenge.challenge);
    const before = reports.length;
    const response = await fetch(path, {
      method,
      headers: { authorization: encodePresentationHeader(vp) },
      cache: 'no-store',
    });
    const body = await getJson(response);
    // The worker's report arrives on a BroadcastChannel, usually before the response is read.
    for (let i = 0; i < 20 && reports.length === before; i++) await new Promise((r) => setTimeout(r, 50));
    const report = reports.slice(before).find((r) => r.path === path);
    return { challenge, vp, status: response.status, body, report };
  };

  const recordRefusal = async (reason: string, action: string, agentDid?: string) => {
    const { json } = await postJson('/provider/refusals', { reason, action, ...(agentDid ? { agentDid } : {}) });
    return json;
  };

  /** The sub-agent's ordinary presentation: its chain and the provider's grant, for files:read. */
  const presentRead = (sub: Wallet) => (challenge: string) =>
    sub.present({
      target: config.target,
      challenge,
      scopes: ['files:read'],
      trustedIssuers: [config.issuerDid],
      grantIssuers: [config.providerDid],
    });

  /** Shows a call that must be refused with `expected`, reports the refusal to the provider, and fails the step otherwise. */
  const expectRefusal = async (
    view: StepView,
    outcomeId: string,
    call: Awaited<ReturnType<typeof callApi>>,
    expected: string,
    action: string,
    agentDid: string,
    extra: HTMLElement[],
  ) => {
    const reason = (call.body as { reason?: string }).reason ?? 'none';
    const denied = call.status === 403 && reason === expected;
    const audit = call.status === 200 ? undefined : await recordRefusal(reason, action, agentDid);
    view.body.append(
      renderOutcome(
        outcomeId,
        call.status === 200 ? 'approved' : 'denied',
        call.status === 200
          ? `✓ approved — expected ${expected}`
          : `✗ denied ${reason} — ${call.status}${denied ? ' (as expected)' : ''}`,
      ),
      renderChecks(verifierChecks(call.report?.checks ?? [])),
      ...extra,
      renderJson(`the worker's refusal (${call.status}) — the request never left the browser`, call.body, true),
      renderJson('the provider records the refusal in the issuer’s audit trail', audit ?? 'not recorded'),
    );
    if (!denied) fail(`expected ${expected}, got ${call.status} ${reason}`);
  };

  /** `repeatable`: a read-only step, which may be run again (each run replaces what the last one showed). */
  const steps: Array<{
    title: string;
    text: string;
    buttons: Array<{ label: string; repeatable?: boolean; run: (view: StepView) => Promise<void> }>;
  }> = [
    {
      title: '1 · The operator mints an enrollment token',
      text: 'The demo runner mints it server-side with the issuer’s admin key (which never reaches this page) and hands the page the single-use token: scopes files:read files:write, delegation depth 2, domain limited to the provider.',
      buttons: [
        {
          label: 'Mint enrollment token',
          run: async (view) => {
            const { status: code, json } = await postJson('/operator/enrollment-token', {});
            if (code !== 201) fail(`the runner answered ${code}`);
            const minted = json as { request: object; response: { tokenId: string; token: string; expiresAt: string } };
            state.token = minted.response.token;
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
          },
        },
      ],
    },
    {
      title: '2 · A browser agent creates its self-custody wallet and onboards',
      text: 'The agent’s Ed25519 key is generated in IndexedDB (non-extractable). The wallet proves it holds the key (DID-Auth over the issuer’s challenge) and receives an AgentCredential.',
      buttons: [
        {
          label: 'Create wallet & onboard',
          run: async (view) => {
            const token = state.token ?? fail('mint a token first (step 1)');
            const agent = await openWallet('agent');
            const keyInfo = await keyStore.get('agent');
            const client = new IssuerClient({ baseUrl: config.issuerRelay, allowInsecureHttp: true });
            const result = await client.onboard(token, { custody: 'self', wallet: agent });
            const credential = result.verifiableCredential;
            state.agent = agent;
            state.agentCredential = credential;
            const subject = credential.credentialSubject;
            view.body.append(
              renderChecks([
                {
                  check: 'key generated and kept in IndexedDB',
                  ok: keyInfo !== undefined,
                  detail: `${agent.did.slice(0, 32)}… (${keyInfo === undefined ? 'missing' : keyInfo.extractable ? 'extractable' : 'non-extractable'})`,
                },
                {
                  check: 'DID-Auth: the wallet signed the issuer’s challenge',
                  ok: true,
                  detail: 'POST /v1/onboard → /v1/onboard/verify',
                },
                {
                  check: 'credential issued by the issuer',
                  ok: credential.issuer === config.issuerDid,
                  detail: String(credential.issuer),
                },
                { check: 'credential subject is this wallet', ok: subject.id === agent.did },
                {
                  check: 'scopes, depth and domains as the token set them',
                  ok: subject.delegationDepth === 2,
                  detail: `${subject.privilegeScopes.join(' ')} · depth ${subject.delegationDepth} · ${(subject.domains ?? []).join(' ')}`,
                },
              ]),
              renderJson('AgentCredential (stored in the agent’s wallet)', credential),
            );
          },
        },
      ],
    },
    {
      title: '3 · The provider asks the user for consent; the provider issues a grant',
      text: 'The user’s own DID (a second key in this browser) signs the provider’s challenge inside a UserConsent. The provider verifies it and signs a DelegationGrantCredential with its own key, on its own status list.',
      buttons: [
        {
          label: 'Approve as the user',
          run: async (view) => {
            const agent = state.agent ?? fail('onboard the agent first (step 2)');
            const agentCredential = state.agentCredential ?? fail('onboard the agent first (step 2)');
            const request = (await getJson(await fetch('/provider/consent', { cache: 'no-store' }))) as {
              provider: string;
              privilegeScopes: string[];
              challenge: string;
            };
            const user = await openWallet('user');
            state.user = user;
            const consent = await createConsent({
              user: user.identity,
              agentDid: agent.did,
              providerDid: request.provider,
              privilegeScopes: request.privilegeScopes,
              challenge: request.challenge,
            });
            const { status: code, json } = await postJson('/provider/grants', { consent, agentCredential });
            const answer = json as { granted: boolean; checks: Check[]; grant?: DelegationGrantCredential };
            view.body.append(
              renderChecks(answer.checks ?? []),
              renderJson('GET /provider/consent — the request shown to the user', request),
              renderJson('UserConsent signed by the user', consent),
            );
            if (code !== 201 || !answer.grant) fail(`the provider refused the grant (${code})`);
            state.grant = answer.grant;
            await agent.addCredential(answer.grant);
            view.body.append(renderJson('DelegationGrantCredential (signed by the provider)', answer.grant, true));
          },
        },
      ],
    },
    {
      title: '4 · The agent delegates a narrower scope to a sub-agent',
      text: 'A third key, the sub-agent’s. The agent signs a DelegatedAgentCredential: files:read only, depth 1 (of its 2), the provider’s domain only, one hour.',
      buttons: [
        {
          label: 'Delegate to a sub-agent',
          run: async (view) => {
            const agent = state.agent ?? fail('onboard the agent first (step 2)');
            const grant = state.grant ?? fail('get the user’s consent first (step 3)');
            const sub = await openWallet('sub-agent');
            const { credential, chain } = await agent.delegate({
              to: sub.did,
              scopes: ['files:read'],
              delegationDepth: 1,
              domains: [config.target],
              lifetimeSeconds: 3600,
            });
            await sub.addCredentials([...chain, grant]);
            state.sub = sub;
            state.subCredential = credential;
            const parent = chain[1] as AgentCredential;
            const s = credential.credentialSubject;
            const p = parent.credentialSubject;
            const parentDomains = p.domains;
            const domainsWithin =
              parentDomains === undefined ||
              (s.domains !== undefined && s.domains.every((d) => parentDomains.includes(d)));
            // Each line is judged here again, from the two credentials as stored: `delegate`
            // refused to sign a wider child, and this shows what that means.
            view.body.append(
              renderChecks([
                {
                  check: 'scopes within the parent’s',
                  ok: within(s.privilegeScopes, p.privilegeScopes),
                  detail: `${s.privilegeScopes.join(' ')} ⊂ ${p.privilegeScopes.join(' ')}`,
                },
                {
                  check: 'depth below the parent’s',
                  ok: s.delegationDepth < p.delegationDepth,
                  detail: `${s.delegationDepth} < ${p.delegationDepth}`,
                },
                { check: 'domains within the parent’s', ok: domainsWithin, detail: (s.domains ?? []).join(' ') },
                {
                  check: 'valid no longer than the parent',
                  ok: validUntilOf(credential) <= validUntilOf(parent),
                  detail: `until ${credential.validUntil ?? ''}`,
                },
                {
                  check: 'names its parent by id and digest',
                  ok:
                    credential.parentCredential.id === parent.id &&
                    credential.parentCredential.digestMultibase === credentialDigest(parent),
                  detail: credential.parentCredential.digestMultibase.slice(0, 24) + '…',
                },
              ]),
              renderJson('DelegatedAgentCredential (agent → sub-agent)', credential, true),
            );
          },
        },
      ],
    },
    {
      title: '5 · The sub-agent calls the provider’s API through the service-worker verifier',
      text: 'GET /api/files/q3-report needs files:read. The sub-agent fetches a nonce from the worker, presents its chain and the grant, and the worker verifies in this browser before the request leaves it.',
      buttons: [
        {
          label: 'Call the API',
          run: async (view) => {
            const sub = state.sub ?? fail('delegate to the sub-agent first (step 4)');
            const call = await callApi('GET', '/api/files/q3-report', presentRead(sub));
            const approved = call.status === 200 && call.report?.decision === 'allow';
            const scopes = call.report?.effectiveScopes ?? [];
            view.body.append(
              renderOutcome(
                'outcome-5',
                approved ? 'approved' : 'denied',
                approved
                  ? `✓ approved — ${call.status}, effective scopes: ${scopes.join(' ')}`
                  : `✗ denied — ${call.status} ${(call.body as { reason?: string }).reason ?? ''}`,
              ),
              renderChecks(verifierChecks(call.report?.checks ?? [])),
              renderJson('the worker’s report', call.report ?? 'no report'),
              renderJson('GET /.well-known/mandate/challenge (answered by the worker)', call.challenge),
              renderJson('Authorization: VP … — the presentation', call.vp),
              renderJson(`the API's answer (${call.status}): what reached the provider`, call.body, true),
            );
            if (!approved) fail('the call was not approved');
          },
        },
      ],
    },
    {
      title: '6 · Exceeding the scope is refused; a revocation takes effect',
      text: 'First the sub-agent forges a further delegation to itself adding files:write, signed with its own key — only the chain rule can catch it. Then the operator revokes the agent’s credential, and the next call is refused.',
      buttons: [
        {
          label: 'Try to exceed the scope',
          run: async (view) => {
            const sub = state.sub ?? fail('delegate to the sub-agent first (step 4)');
            const parent = state.subCredential ?? fail('delegate to the sub-agent first (step 4)');
            const agentCredential = state.agentCredential ?? fail('step 2 first');
            const grant = state.grant ?? fail('step 3 first');
            // Built by hand: Wallet.delegate refuses to sign an escalation (it checks the same rules first).
            const forged = (await createProof(
              {
                '@context': [...MANDATE_CONTEXTS],
                id: newUrnUuid(),
                type: ['VerifiableCredential', 'DelegatedAgentCredential'],
                issuer: sub.did,
                validFrom: parent.validFrom,
                ...(parent.validUntil ? { validUntil: parent.validUntil } : {}),
                credentialSubject: {
                  id: sub.did,
                  privilegeScopes: ['files:read', 'files:write'],
                  delegationDepth: 0,
                  domains: [config.target],
                },
                parentCredential: { id: parent.id, digestMultibase: credentialDigest(parent) },
              },
              {
                signer: sub.identity.signer,
                verificationMethod: sub.identity.verificationMethod,
                proofPurpose: 'assertionMethod',
              },
            )) as unknown as DelegatedAgentCredential;
            const call = await callApi('POST', '/api/files/q3-report', (challenge) =>
              signPresentation({
                holder: sub.identity,
                credentials: [forged, parent, agentCredential, grant],
                challenge,
                domain: config.target,
              }),
            );
            await expectRefusal(view, 'outcome-6a', call, 'SCOPE_ESCALATION', 'POST /api/files/q3-report', sub.did, [
              renderJson('the forged DelegatedAgentCredential (sub-agent → itself)', forged),
            ]);
          },
        },
        {
          label: 'Operator revokes the agent, then call again',
          run: async (view) => {
            const sub = state.sub ?? fail('delegate to the sub-agent first (step 4)');
            const agentCredential = state.agentCredential ?? fail('step 2 first');
            const { status: code, json } = await postJson('/operator/revoke', { vcId: agentCredential.id });
            if (code !== 200) fail(`the revocation failed (${code})`);
            view.body.append(renderJson('POST /v1/vcs/{vcId}/revoke (the runner, with the admin key)', json));
            // The issuer's status list states ttl 1 s: the worker fetches it again after that.
            let call: Awaited<ReturnType<typeof callApi>> | undefined;
            for (let attempt = 0; attempt < 5; attempt++) {
              await new Promise((r) => setTimeout(r, 1200));
              call = await callApi('GET', '/api/files/q3-report', presentRead(sub));
              if (call.status !== 200) break;
            }
            if (!call) fail('no call made');
            await expectRefusal(
              view,
              'outcome-6b',
              call,
              'CREDENTIAL_REVOKED',
              'GET /api/files/q3-report',
              sub.did,
              [],
            );
          },
        },
      ],
    },
    {
      title: '7 · The audit trail of the whole story',
      text: 'The issuer’s hash-chained audit log (read by the runner with the admin key): the token, the enrollment, the revocation, and the provider’s signed events — its authorization and both refusals with their reason codes.',
      buttons: [
        {
          label: 'Show the audit trail',
          repeatable: true,
          run: async (view) => {
            const answer = (await getJson(await fetch('/operator/audit', { cache: 'no-store' }))) as {
              chain: { intact: boolean; count: number; brokenAt?: number };
              records: Array<{
                seq: number;
                at: string;
                event: string;
                actor: string;
                agentDid?: string;
                reason?: string;
                data?: Record<string, unknown>;
              }>;
            };
            // This page's refusals only: the issuer may hold earlier runs of the story.
            const sub = state.sub?.did;
            const refusals = answer.records.filter(
              (r) =>
                sub !== undefined &&
                r.agentDid === sub &&
                /denied|refus|revok/i.test(`${r.event} ${r.reason ?? ''} ${JSON.stringify(r.data ?? {})}`),
            );
            const checks = [
              {
                check: 'hash chain intact',
                ok: answer.chain.intact,
                detail: answer.chain.intact
                  ? `${answer.chain.count} records`
                  : `broken at record ${answer.chain.brokenAt ?? '?'}`,
              },
              {
                check: 'this story’s refusals recorded with their reason codes',
                ok:
                  refusals.some((r) => JSON.stringify(r).includes('SCOPE_ESCALATION')) &&
                  refusals.some((r) => JSON.stringify(r).includes('CREDENTIAL_REVOKED')),
                ...(sub === undefined ? { detail: 'run steps 1–6 first' } : {}),
              },
            ];
            view.body.append(renderChecks(checks));
            const table = element('table', { id: 'audit-table' });
            const head = element('tr');
            for (const h of ['#', 'time', 'event', 'actor', 'agent', 'reason / result'])
              head.append(element('th', { scope: 'col' }, h));
            table.append(element('thead'), element('tbody'));
            (table.firstChild as HTMLElement).append(head);
            for (const r of answer.records) {
              const result =
                r.reason ??
                (typeof r.data?.result === 'string' ? `${String(r.data.action ?? '')} → ${r.data.result}` : '');
              const row = element('tr', {
                'data-refusal': String(/\bdenied\b|DENIED|REFUSED|REVOKED/.test(`${r.event} ${result}`)),
              });
              for (const cell of [
                String(r.seq),
                r.at.slice(11, 19),
                r.event,
                r.actor.length > 40 ? `${r.actor.slice(0, 40)}…` : r.actor,
                r.agentDid ? `${r.agentDid.slice(0, 24)}…` : '',
                result,
              ])
                row.append(element('td', {}, cell));
              (table.lastChild as HTMLElement).append(row);
            }
            view.body.append(table, renderJson('GET /v1/audit (raw)', answer));
            if (checks.some((c) => !c.ok))
              fail(
                `not yet: ${checks
                  .filter((c) => !c.ok)
                  .map((c) => c.check)
                  .join('; ')}`,
              );
          },
        },
      ],
    },
  ];

  const container = document.getElementById('steps') as HTMLElement;
  steps.forEach((step, i) => {
    const section = element('section', {
      class: 'step',
      id: `step-${i + 1}`,
      'data-state': 'pending',
      'aria-labelledby': `step-${i + 1}-title`,
    });
    section.append(element('h2', { id: `step-${i + 1}-title` }, step.title), element('p', {}, step.text));
    const body = element('div', { class: 'result', 'aria-live': 'polite' });
    const view: StepView = { section, buttons: [], body };
    const succeeded = new Set<number>();
    step.buttons.forEach((b, j) => {
      const button = element(
        'button',
        { type: 'button', id: `run-${i + 1}${step.buttons.length > 1 ? String.fromCharCode(97 + j) : ''}` },
        b.label,
      );
      button.addEventListener('click', () => {
        button.disabled = true;
        section.dataset.state = 'running';
        // A retry starts clean: the last attempt's error no longer applies.
        if (b.repeatable) body.replaceChildren();
        else for (const stale of body.querySelectorAll('p.error')) stale.remove();
        b.run(view).then(
          () => {
            succeeded.add(j);
            section.dataset.state = succeeded.size === step.buttons.length ? 'done' : 'partial';
            if (b.repeatable) button.disabled = false;
          },
          (error: unknown) => {
            section.dataset.state = 'failed';
            const text = isMandateError(error)
              ? `${error.code}: ${error.message}`
              : error instanceof Error
                ? error.message
                : String(error);
            body.append(element('p', { class: 'error', role: 'alert' }, text));
            button.disabled = false;
          },
        );
      });
      view.buttons.push(button);
      section.append(button);
    });
    section.append(body);
    container.append(section);
  });
  await verifierReady.catch(() => undefined);
}

void main();
