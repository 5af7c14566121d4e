// The docs' tables of reason codes, generated from the one registry (wallet/reasons/registry.ts)
// and each module's list, between `<!-- reasons:NAME -->` and `<!-- /reasons:NAME -->` markers,
// so a code, its meaning, its status or its OAuth error is written once.
// test/docs/reason-tables.test.ts fails when a table differs; `npm run docs:reasons` rewrites them.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLI_ERROR_CODES } from '../../cli/errors.ts';
import { A2A_CARD_CODES } from '../../wallet/a2a/errors.ts';
import { AGENT_FETCH_CODES } from '../../wallet/agent/errors.ts';
import { MCP_AUTH_REASONS } from '../../verifier-worker/mcp/errors.ts';
import { KEY_DIRECTORY_REASONS } from '../../wallet/http-signatures/directory-read.ts';
import { HTTP_SIGNATURE_REASONS } from '../../wallet/http-signatures/errors.ts';
import { REASON_CODES, SIGNED_REQUEST_REASONS } from '../../wallet/vc/reasons.ts';
import { REGISTERED_CODES, reasonEntry, type OAuthError, type RegisteredCode } from '../../wallet/reasons/registry.ts';

/** The order the token endpoint's table groups its rows in (RFC 6749 §5.2's, then RFC 8707, RFC 9449). */
const OAUTH_ORDER: readonly OAuthError[] = [
  'invalid_request',
  'unsupported_grant_type',
  'invalid_target',
  'invalid_client',
  'unauthorized_client',
  'invalid_grant',
  'invalid_scope',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'unsupported_response_type',
];

const code = (c: string): string => `\`${c}\``;
const row = (cells: readonly (string | number)[]): string => `| ${cells.join(' | ')} |`;

function protocolTable(): string {
  return [
    '| code | raised when |',
    '|---|---|',
    ...REASON_CODES.map((c) => row([code(c), reasonEntry(c).meaning])),
  ].join('\n');
}

function signedRequestTable(): string {
  return [
    '| code | raised when |',
    '|---|---|',
    ...SIGNED_REQUEST_REASONS.map((c) => row([code(c), reasonEntry(c).meaning])),
  ].join('\n');
}

function issuerTable(): string {
  const codes = REGISTERED_CODES.filter((c) => reasonEntry(c).issuer !== undefined);
  const status = (c: RegisteredCode): number => reasonEntry(c).issuer?.status ?? 0;
  const sorted = [...codes].sort((a, b) => status(a) - status(b));
  return [
    '| status | code | meaning |',
    '|---|---|---|',
    ...sorted.map((c) => {
      const entry = reasonEntry(c);
      return row([status(c), code(c), entry.issuer?.when ?? entry.meaning]);
    }),
  ].join('\n');
}

function oauthTable(): string {
  const passedThrough = REASON_CODES.filter((c) => reasonEntry(c).oauth?.invalid_request === null);
  const notPassed = REASON_CODES.filter((c) => !passedThrough.includes(c));
  const rows: string[] = [];
  for (const error of OAUTH_ORDER) {
    if (error === 'invalid_request')
      rows.push(
        row([
          code(error),
          `any verifier reason ([protocol.md](protocol.md) §Reason codes) but ${notPassed.map(code).join(', ')}`,
          'the presentation was refused: `REPLAYED`, `HOLDER_MISMATCH`, `CREDENTIAL_REVOKED`, `VP_EXPIRED`, `UNTRUSTED_ISSUER`, … (RFC 8693 §2.2.2)',
        ]),
      );
    for (const c of REGISTERED_CODES) {
      const when = reasonEntry(c).oauth?.[error];
      if (typeof when === 'string') rows.push(row([code(error), code(c), when]));
    }
  }
  return ['| `error` | `mandate_reason` | When |', '| --- | --- | --- |', ...rows].join('\n');
}

function mcpTable(): string {
  return [
    '| `reason` | Status | `error` | When |',
    '| --- | --- | --- | --- |',
    ...MCP_AUTH_REASONS.map((c) => {
      const mcp = reasonEntry(c).mcp;
      if (mcp === undefined) throw new Error(`${c} has no MCP answer in the registry`);
      const error =
        mcp.error !== undefined ? code(mcp.error) : mcp.status === 401 ? '— (body: `invalid_request`)' : '—';
      return row([code(c), mcp.status, error, mcp.when]);
    }),
  ].join('\n');
}

function cliTable(): string {
  return ['| code | when |', '|---|---|', ...CLI_ERROR_CODES.map((c) => row([code(c), reasonEntry(c).meaning]))].join(
    '\n',
  );
}

function httpSignaturesTable(): string {
  return [
    '| code | raised when |',
    '|---|---|',
    ...HTTP_SIGNATURE_REASONS.map((c) => row([code(c), reasonEntry(c).meaning])),
  ].join('\n');
}

function keyDirectoryTable(): string {
  return [
    '| code | raised when |',
    '|---|---|',
    ...KEY_DIRECTORY_REASONS.map((c) => row([code(c), reasonEntry(c).meaning])),
  ].join('\n');
}

function a2aTable(): string {
  return [
    '| code | raised when |',
    '|---|---|',
    ...A2A_CARD_CODES.map((c) => row([code(c), reasonEntry(c).meaning])),
  ].join('\n');
}

function agentTable(): string {
  return [
    '| code | raised when |',
    '|---|---|',
    ...AGENT_FETCH_CODES.map((c) => row([code(c), reasonEntry(c).meaning])),
  ].join('\n');
}

/** Each generated table: the doc it lives in, its marker name, its text. */
export const REASON_TABLES = [
  { doc: 'docs/protocol.md', name: 'verifier', render: protocolTable },
  { doc: 'docs/protocol.md', name: 'signed-request', render: signedRequestTable },
  { doc: 'docs/api.md', name: 'issuer', render: issuerTable },
  { doc: 'docs/oauth.md', name: 'oauth', render: oauthTable },
  { doc: 'docs/mcp.md', name: 'mcp', render: mcpTable },
  { doc: 'docs/cli.md', name: 'cli', render: cliTable },
  { doc: 'docs/http-signatures.md', name: 'http-signatures', render: httpSignaturesTable },
  { doc: 'docs/a2a.md', name: 'a2a', render: a2aTable },
  { doc: 'docs/key-directory.md', name: 'key-directory', render: keyDirectoryTable },
  { doc: 'docs/agents.md', name: 'agent', render: agentTable },
] as const;

const root = new URL('../../', import.meta.url);

export function readDoc(doc: string): string {
  return readFileSync(new URL(doc, root), 'utf8');
}

/** Where the text between the markers of `name` starts and ends in `text`, or undefined. */
function blockBounds(text: string, name: string): { start: number; end: number } | undefined {
  const open = `<!-- reasons:${name} -->\n`;
  const start = text.indexOf(open);
  const end = text.indexOf(`<!-- /reasons:${name} -->`, start);
  return start < 0 || end < 0 ? undefined : { start: start + open.length, end };
}

/** The table between the markers of `name` in `text` (without its last newline), or undefined. */
export function generatedBlock(text: string, name: string): string | undefined {
  const bounds = blockBounds(text, name);
  return bounds === undefined ? undefined : text.slice(bounds.start, bounds.end).replace(/\n$/, '');
}

function withBlock(text: string, name: string, table: string): string {
  const bounds = blockBounds(text, name);
  if (bounds === undefined) throw new Error(`no <!-- reasons:${name} --> markers`);
  return `${text.slice(0, bounds.start)}${table}\n${text.slice(bounds.end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  for (const { doc, name, render } of REASON_TABLES) {
    const text = readDoc(doc);
    const next = withBlock(text, name, render());
    if (next !== text) {
      writeFileSync(new URL(doc, root), next);
      console.log(`wrote ${doc} (${name})`);
    }
  }
}
