// One reason-code vocabulary: every module's codes are codes of wallet/reasons/registry.ts (the
// compile-time checks in each module are the main guard; this holds them at run time too), and
// the docs' tables of codes are exactly what the registry generates (`npm run docs:reasons`).
import { describe, expect, it } from 'vitest';
import { CLI_ERROR_CODES } from '../../cli/errors.ts';
import { ISSUER_ERRORS } from '../../issuer/http/errors.ts';
import { MCP_AUTH_REASONS } from '../../verifier-worker/mcp/errors.ts';
import { REASON_CODES } from '../../wallet/vc/reasons.ts';
import { REASONS, REGISTERED_CODES, isRegisteredCode, reasonEntry } from '../../wallet/reasons/registry.ts';
import { REASON_TABLES, generatedBlock, readDoc } from '../support/reason-tables.ts';

describe('the reason registry', () => {
  it('holds every vocabulary: the verifier, the issuer API, the MCP resource server, the CLI', () => {
    for (const code of [...REASON_CODES, ...Object.keys(ISSUER_ERRORS), ...MCP_AUTH_REASONS, ...CLI_ERROR_CODES])
      expect(isRegisteredCode(code), code).toBe(true);
  });

  it("gives the issuer's table exactly the codes with an issuer status, and MCP's exactly those with an MCP answer", () => {
    const withIssuer = REGISTERED_CODES.filter((code) => reasonEntry(code).issuer !== undefined);
    expect(Object.keys(ISSUER_ERRORS).sort()).toEqual([...withIssuer].sort());
    for (const code of withIssuer)
      expect(ISSUER_ERRORS[code as keyof typeof ISSUER_ERRORS], code).toBe(reasonEntry(code).issuer?.status);
    const withMcp = REGISTERED_CODES.filter((code) => reasonEntry(code).mcp !== undefined);
    expect([...MCP_AUTH_REASONS].sort()).toEqual([...withMcp].sort());
  });

  it('has UPPER_SNAKE codes, each with a one-line meaning', () => {
    for (const [code, entry] of Object.entries(REASONS)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(entry.meaning.length, code).toBeGreaterThan(0);
      expect(entry.meaning, code).not.toContain('\n');
    }
  });

  it('documents every registered code in a generated table', () => {
    const documented = REASON_TABLES.map(({ render }) => render()).join('\n');
    for (const code of REGISTERED_CODES) expect(documented, code).toContain(`\`${code}\``);
  });
});

describe('docs: the tables of reason codes', () => {
  for (const { doc, name, render } of REASON_TABLES)
    it(`${doc} (${name}) is what the registry generates (run \`npm run docs:reasons\` after changing it)`, () => {
      expect(generatedBlock(readDoc(doc), name)).toBe(render());
    });
});
