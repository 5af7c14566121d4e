// docs/mcp.md promises a status and an OAuth `error` for every reason the MCP resource server
// gives; this keeps that table true against MCP_AUTH_REASONS and the answers refusal() builds.
import { readFileSync } from 'node:fs';
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
