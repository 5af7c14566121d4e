// docs/mcp.md promises a status and an OAuth `error` for every reason the MCP resource server
// gives; this keeps that table true against MCP_AUTH_REASONS and the answers refusal() builds,
// type-checks the page's fifteen-line example against the current API and the MCP SDK and serves
// it; and it serves README's "Use with MCP" example and calls it twice (one transport per request).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { MCP_AUTH_REASONS, type McpAuthReason } from '../../../verifier-worker/index.ts';
import { refusal } from '../../../verifier-worker/mcp/challenge.ts';
import { startTokenServer } from '../../support/mcp.ts';
import { repoProgram, typeErrors } from '../../support/typescript.ts';

const doc = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('## Errors'), doc.indexOf('## Replay store'));
const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| ([^|]+) \|/gm)].map(([, code, status, error]) => ({
  code: code as McpAuthReason,
  status: Number(status),
  error: (error as string).trim(),
}));
const context = {
  resourceMetadata: 'https://x.example/.well-known/oauth-protected-resource/mcp',
  challengeScopes: [],
  dpop: true,
};

describe('docs/mcp.md §Errors', () => {
  it('has one row per reason, in the order of MCP_AUTH_REASONS', () => {
    expect(rows.map((row) => row.code)).toEqual([...MCP_AUTH_REASONS]);
  });

  it('states the status and OAuth error each reason is answered with', async () => {
    for (const row of rows) {
      const response = refusal(row.code, 'm', context);
      expect(response.status, row.code).toBe(row.status);
      const body = (await response.json()) as { error?: unknown; reason?: string };
      if (row.error.startsWith('`')) expect(body.error, row.code).toBe(row.error.replace(/`/g, ''));
      if (response.status === 401 || response.status === 403)
        expect(response.headers.get('www-authenticate'), row.code).toContain('resource_metadata="');
    }
  });
});

describe('docs/mcp.md fifteen-line example', () => {
  it('type-checks against mandate/verifier and the MCP SDK', () => {
    const match = /<!-- example: mcp-hono[^>]*-->\s*\n```ts\n([\s\S]*?)\n```/.exec(doc);
    expect(match).not.toBeNull();
    const here = dirname(fileURLToPath(import.meta.url));
    const repo = join(here, '..', '..', '..');
    const dir = mkdtempSync(join(here, '.tmp-docs-mcp-'));
    try {
      const file = join(dir, 'example.ts');
      const verifier = relative(dir, join(repo, 'verifier-worker', 'index.ts'))
        .split('\\')
        .join('/');
      writeFileSync(file, match![1]!.replaceAll("from 'mandate/verifier'", `from '${verifier}'`));
      const messages = typeErrors(repoProgram([file]), file);
      expect(messages).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * Serves a documented Hono MCP server (its `app` export) with only the issuer's URL changed (its
 * JWKS must be reachable; the resource stays as written), and calls `read_calendar` twice with a
 * token for a different agent each time: one transport per request, each call seeing its agent.
 */
async function serveTwice(source: string, name: string): Promise<void> {
  const issuer = await startTokenServer();
  const here = dirname(fileURLToPath(import.meta.url));
  const dir = mkdtempSync(join(here, `.tmp-docs-${name}-`));
  const verifier = relative(dir, join(here, '..', '..', '..', 'verifier-worker', 'index.ts'))
    .split('\\')
    .join('/');
  const file = join(dir, `${name}.ts`);
  writeFileSync(
    file,
    source
      .replaceAll("from 'mandate/verifier'", `from '${verifier}'`)
      .replaceAll("'https://issuer.example.com'", `'${issuer.url}'`),
  );
  const { app } = (await import(file)) as { app: Hono };
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    for (const [id, agent] of [
      [1, 'did:example:first'],
      [2, 'did:example:second'],
    ] as const) {
      const token = await issuer.mint({ aud: 'https://calendar.example.com/mcp', sub: agent, client_id: agent });
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_calendar' } }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id, result: { content: [{ text: `hello ${agent}` }] } });
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('docs/mcp.md fifteen-line example, served', () => {
  it('serves one request after another behind mcpAuth, each tool call seeing its agent', async () => {
    const match = /<!-- example: mcp-hono[^>]*-->\s*\n```ts\n([\s\S]*?)\n```/.exec(doc);
    expect(match).not.toBeNull();
    // The page listens on port 3000; here the test serves its app on a free port instead.
    const source = match![1]!
      .replace("import { serve } from '@hono/node-server';\n", '')
      .replace('const app = new Hono', 'export const app = new Hono')
      .replace(/\nserve\(\{ fetch: app\.fetch, port: 3000 \}\);\s*$/, '\n');
    expect(source).not.toContain('serve(');
    await serveTwice(source, 'mcp-hono');
  }, 60_000);
});

describe("README's Use with MCP example", () => {
  it('serves one request after another behind mcpAuth, each tool call seeing its agent', async () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const match = /<!-- example: readme-mcp[^>]*-->\s*\n```ts\n([\s\S]*?)\n```/.exec(readme);
    expect(match).not.toBeNull();
    await serveTwice(match![1]!, 'readme-mcp');
  }, 60_000);
});
