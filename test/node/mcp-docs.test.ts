// docs/mcp.md promises a status and an OAuth `error` for every reason the MCP resource server
// gives; this keeps that table true against MCP_AUTH_REASONS and the answers refusal() builds,
// and type-checks the page's fifteen-line example against the current API and the MCP SDK.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MCP_AUTH_REASONS, type McpAuthReason } from '../../verifier-worker/index.ts';
import { refusal } from '../../verifier-worker/mcp/challenge.ts';

const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
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
    const repo = join(here, '..', '..');
    const dir = mkdtempSync(join(here, '.tmp-docs-mcp-'));
    try {
      const file = join(dir, 'example.ts');
      const verifier = relative(dir, join(repo, 'verifier-worker', 'index.ts'))
        .split('\\')
        .join('/');
      writeFileSync(file, match![1]!.replaceAll("from 'mandate/verifier'", `from '${verifier}'`));
      const config = ts.getParsedCommandLineOfConfigFile(
        join(repo, 'tsconfig.json'),
        {},
        {
          ...ts.sys,
          onUnRecoverableConfigFileDiagnostic: (d) => {
            throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
          },
        },
      );
      const program = ts.createProgram([file], { ...config!.options, noEmit: true });
      const messages = ts
        .getPreEmitDiagnostics(program, program.getSourceFile(file))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(messages).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
