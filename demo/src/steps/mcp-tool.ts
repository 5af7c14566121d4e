/**
 * Step 6: the sub-agent calls a tool of the provider's MCP server, protected by mandate/verifier's
 * `mcpAuth`. It finds its way from the 401 to the issuer, exchanges a presentation of its chain
 * for a DPoP-bound access token (RFC 8693), and calls `read_file`; `write_file` needs files:write,
 * which its chain does not hold: the MCP server answers 403 insufficient_scope, and the issuer
 * refuses to step the token up (invalid_scope).
 */
import type { Check } from '../dom.ts';
import { renderChecks, renderJson, renderOutcome } from '../dom.ts';
import { createDpopKey } from '../dpop.ts';
import {
  discover,
  exchangePresentation,
  mcpPost,
  resourceMetadataOf,
  toolCall,
  type Discovery,
  type McpAnswer,
  type TokenExchange,
} from '../mcp-client.ts';
import { fail, type StepDefinition, type StepView, type Story } from '../story.ts';

const READ = toolCall('read_file', { name: 'q3-report' }, 1);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON-RPC `result` of an answer, if it is one. */
function resultOf(answer: McpAnswer): Record<string, unknown> | undefined {
  return isObject(answer.body) && isObject(answer.body.result) ? answer.body.result : undefined;
}

/** The texts of a `tools/call` result. */
function texts(answer: McpAnswer): string[] {
  const content = resultOf(answer)?.content;
  return Array.isArray(content)
    ? content.flatMap((c) => (isObject(c) && typeof c.text === 'string' ? [c.text] : []))
    : [];
}

/** The caller the tool reported (its second text), parsed for display. */
function reportedCaller(answer: McpAnswer): unknown {
  try {
    return JSON.parse(texts(answer)[1] ?? 'null') as unknown;
  } catch {
    return texts(answer)[1];
  }
}

/** The tool names of a `tools/list` result. */
function toolNames(answer: McpAnswer): string[] {
  const tools = resultOf(answer)?.tools;
  return Array.isArray(tools) ? tools.flatMap((t) => (isObject(t) && typeof t.name === 'string' ? [t.name] : [])) : [];
}

/** A presentation of the sub-agent's chain for the MCP resource, exchanged at the issuer for `scope`. */
async function exchange(story: Story, discovery: Discovery, scope: string): Promise<TokenExchange> {
  const sub = story.state.sub ?? fail('delegate to the sub-agent first (step 4)');
  const resource = story.config.mcpResource;
  const key = story.state.mcp?.session.key ?? (await createDpopKey());
  // No grant: the issuer trusts its own credentials only, and the chain alone holds files:read.
  // The challenge names the DPoP key (docs/oauth.md §Binding): whoever sees the presentation
  // cannot exchange it without the key; the suffix keeps each exchange's challenge unique.
  const vp = await sub.present({
    target: resource,
    challenge: `${key.jkt}.${crypto.randomUUID()}`,
    scopes: ['files:read'],
    trustedIssuers: [story.config.issuerDid],
    grantIssuers: [],
  });
  return exchangePresentation(discovery, vp, { resource, scope, clientId: sub.did }, key);
}

function tokenChecks(story: Story, discovery: Discovery, unauthorized: McpAnswer, got: TokenExchange): Check[] {
  const claims = got.session?.claims ?? {};
  const act = isObject(claims.act) ? claims.act.sub : undefined;
  const cnf = isObject(claims.cnf) ? claims.cnf.jkt : undefined;
  const servers = discovery.resourceMetadata.authorization_servers;
  return [
    {
      check: 'without a token: 401, the challenge names the resource metadata (RFC 9728)',
      ok: unauthorized.status === 401 && resourceMetadataOf(unauthorized.wwwAuthenticate) !== undefined,
      detail: resourceMetadataOf(unauthorized.wwwAuthenticate) ?? 'none',
    },
    {
      check: 'the metadata names the Mandate issuer as authorization server',
      ok: Array.isArray(servers) && servers.includes(story.config.issuerUrl),
      detail: discovery.tokenEndpoint,
    },
    {
      check: 'token exchange (RFC 8693) of the chain’s presentation, proof domain = the MCP resource',
      ok: got.status === 200,
      detail: `${got.status}`,
    },
    {
      check: 'access token for this resource, DPoP-bound, files:read only',
      ok: claims.aud === story.config.mcpResource && cnf === got.session?.key.jkt && claims.scope === 'files:read',
      detail: `aud ${String(claims.aud)} · scope ${String(claims.scope)} · cnf.jkt ${String(cnf).slice(0, 12)}…`,
    },
    {
      check: 'the token names the delegator (act)',
      ok: act === story.state.agent?.did,
      detail: typeof act === 'string' ? `${act.slice(0, 32)}…` : 'none',
    },
  ];
}

function callChecks(listed: McpAnswer, called: McpAnswer): Check[] {
  return [
    {
      check: 'tools/list shows only what files:read may call',
      ok: toolNames(listed).join(' ') === 'list_files read_file',
      detail: toolNames(listed).join(', '),
    },
    {
      check: 'tools/call read_file: token and DPoP proof verified, tool table allows it',
      ok: called.status === 200 && texts(called).length > 0 && resultOf(called)?.isError !== true,
      detail: texts(called)[0] ?? `${called.status}`,
    },
  ];
}

async function callAllowed(story: Story, view: StepView): Promise<void> {
  const resource = story.config.mcpResource;
  const unauthorized = await mcpPost(resource, READ);
  const metadataUrl =
    resourceMetadataOf(unauthorized.wwwAuthenticate) ?? fail(`no resource_metadata in the ${unauthorized.status}`);
  const discovery = await discover(metadataUrl);
  const got = await exchange(story, discovery, 'files:read');
  const shown = [
    renderJson(`POST ${resource} without a token → ${unauthorized.status}`, unauthorized),
    renderJson(`GET ${metadataUrl} (RFC 9728)`, discovery.resourceMetadata),
    renderJson('GET the issuer’s /.well-known/oauth-authorization-server (RFC 8414)', discovery.authorizationServer),
    renderJson(
      `POST ${discovery.tokenEndpoint} — the token exchange (form, with a DPoP proof; relayed by this origin)`,
      got.form,
    ),
    renderJson(`the issuer’s answer (${got.status})`, got.body),
  ];
  if (!got.session) {
    view.body.append(renderChecks(tokenChecks(story, discovery, unauthorized, got)), ...shown);
    return fail(`the issuer refused the token exchange (${got.status})`);
  }
  story.state.mcp = { session: got.session, discovery };
  const listed = await mcpPost(resource, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, got.session);
  const called = await mcpPost(resource, READ, got.session);
  const checks = [...tokenChecks(story, discovery, unauthorized, got), ...callChecks(listed, called)];
  const approved = checks.every((c) => c.ok === true);
  view.body.append(
    renderOutcome(
      'outcome-6a',
      approved ? 'approved' : 'denied',
      approved
        ? `✓ read_file answered — ${called.status}, scopes ${String(got.session.claims.scope)}`
        : `✗ ${called.status}`,
    ),
    renderChecks(checks),
    ...shown,
    renderJson('the access token’s claims (RFC 9068; verified by the MCP server, not here)', got.session.claims, true),
    renderJson('tools/list (filtered to what the token may call)', listed.body),
    renderJson('tools/call read_file — the request and its DPoP proof’s claims', { ...called, body: undefined }),
    renderJson(
      `the MCP server’s answer (${called.status}): the tool’s output and the caller it was given`,
      called.body,
      true,
    ),
    renderJson(
      'the caller the tool was given (extra.authInfo, from the verified token), and its audit event',
      reportedCaller(called),
      true,
    ),
  );
  if (!approved) fail('the MCP call was not approved');
}

/** The token of the first action, or a fresh one if it is about to expire (they live 5 minutes). */
async function heldSession(story: Story) {
  const held = story.state.mcp ?? fail('get a token and call read_file first');
  if (held.session.expiresAt - Date.now() > 30_000) return held.session;
  const again = await exchange(story, held.discovery, 'files:read');
  const session = again.session ?? fail(`the issuer refused a new token (${again.status})`);
  story.state.mcp = { session, discovery: held.discovery };
  return session;
}

function oauthError(body: unknown): string {
  if (!isObject(body)) return 'none';
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return `${text(body.error)} ${text(body.mandate_reason)}`.trim();
}

async function callBeyond(story: Story, view: StepView): Promise<void> {
  const session = await heldSession(story);
  const discovery = story.state.mcp?.discovery ?? fail('get a token first');
  const refused = await mcpPost(
    story.config.mcpResource,
    toolCall('write_file', { name: 'q3-report', text: '—' }, 4),
    session,
  );
  const reason = isObject(refused.body) ? refused.body.reason : undefined;
  const wanted = /scope="([^"]*)"/.exec(refused.wwwAuthenticate ?? '')?.[1];
  // Step-up, as the 403 suggests: the issuer grants only what the chain holds.
  const stepUp = await exchange(story, discovery, 'files:write');
  const denied = refused.status === 403 && reason === 'INSUFFICIENT_SCOPE' && wanted === 'files:write';
  const stepUpRefused = stepUp.status === 400 && isObject(stepUp.body) && stepUp.body.error === 'invalid_scope';
  view.body.append(
    renderOutcome(
      'outcome-6b',
      refused.status === 200 ? 'approved' : 'denied',
      refused.status === 200
        ? '✓ approved — expected INSUFFICIENT_SCOPE'
        : `✗ denied ${String(reason)} — ${refused.status} insufficient_scope, scope="${wanted ?? ''}"${denied ? ' (as expected)' : ''}`,
    ),
    renderChecks([
      { check: 'token and DPoP proof verified (signature, iss, aud, exp, ath, cnf.jkt)', ok: refused.status !== 401 },
      {
        check: 'tool table: write_file needs files:write; the token holds files:read',
        ok: refused.status === 200,
        detail: `${String(reason)} · WWW-Authenticate scope="${wanted ?? ''}"`,
      },
      {
        check: 'step-up: the issuer exchanges the chain for a files:write token',
        ok: stepUp.status === 200,
        detail: `${stepUp.status} ${oauthError(stepUp.body)}`,
      },
    ]),
    renderJson('tools/call write_file — the request and its DPoP proof’s claims', { ...refused, body: undefined }),
    renderJson(`the MCP server’s refusal (${refused.status}) — the tool never ran`, refused.body, true),
    renderJson('POST /oauth/token with scope=files:write — the form', stepUp.form),
    renderJson(`the issuer’s refusal (${stepUp.status})`, stepUp.body, true),
  );
  if (!denied || !stepUpRefused)
    fail(
      `expected 403 INSUFFICIENT_SCOPE and invalid_scope, got ${refused.status} ${String(reason)} and ${stepUp.status}`,
    );
}

export function mcpToolStep(story: Story): StepDefinition {
  return {
    title: '6 · The sub-agent calls an MCP tool through an MCP server protected by Mandate',
    text: 'The provider’s MCP server (/mcp, the official MCP SDK behind mandate/verifier’s mcpAuth) takes OAuth access tokens from the issuer. The sub-agent follows the 401 to the issuer, exchanges a presentation of its chain for a DPoP-bound token (its key made in this browser), lists the tools and reads a file. Writing needs files:write: refused by the MCP server, and the issuer will not step the token up.',
    buttons: [
      { label: 'Get a token and call read_file', run: (view) => callAllowed(story, view) },
      { label: 'Call write_file (needs files:write)', run: (view) => callBeyond(story, view) },
    ],
  };
}
