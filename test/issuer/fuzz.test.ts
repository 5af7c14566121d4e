// Bad input never breaks the issuer. Every operation of its own OpenAPI document receives
// arbitrary requests — path values from a pool of real ids and hostile strings, query strings,
// and JSON bodies shaped after the operation's schema (its member names, with values of any
// type, including real DIDs and ids so some requests get past validation) — with and without
// the admin key. Each answer must be a deliberate one: below 500, JSON where there is a body,
// no stack trace or source path, within the time limit. Afterwards the audit chain is intact
// and the issuer still serves.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboardServerAgent, startTestIssuer, TEST_ADMIN_KEY, type TestIssuer } from '../support/issuer.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyMembers: string[] | undefined;
}

let issuer: TestIssuer;
let operations: Operation[];
let realValues: string[];

/** Path values: real ids (so handlers reach their records) and strings handlers must survive. */
const HOSTILE = [
  '',
  '..',
  '%2e%2e%2f',
  '%00',
  '%E0%A4%A',
  '%25',
  'did:key:z6Mk',
  'did%3Aweb%3Aexample.com',
  'urn:uuid:00000000-0000-0000-0000-000000000000',
  'a'.repeat(3000),
  '\u{1F600}',
  '%F0%9F%98',
];

function schemaMembers(
  doc: { components?: { schemas?: Record<string, unknown> } },
  schema: unknown,
): string[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const ref = (schema as { $ref?: string }).$ref;
  const resolved = ref === undefined ? schema : doc.components?.schemas?.[ref.split('/').at(-1) ?? ''];
  const properties = (resolved as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties === undefined ? [] : Object.keys(properties);
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  const agent = await onboardServerAgent(issuer);
  const doc = (await issuer.call('/v1/openapi.json')).json as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: Array<{ in: string; name: string }>;
          requestBody?: { content?: Record<string, { schema?: unknown }> };
        }
      >
    >;
    components?: { schemas?: Record<string, unknown> };
  };
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
      queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      bodyMembers:
        op.requestBody === undefined
          ? undefined
          : schemaMembers(doc, op.requestBody.content?.['application/json']?.schema),
    })),
  );
  realValues = [
    agent.agentDid,
    agent.vcId,
    issuer.running.ctx.issuer.did,
    'files:read',
    'server',
    'self',
    new Date().toISOString(),
  ];
}, 60_000);

afterAll(() => issuer?.dispose());

const value: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  // Any UTF-16 code units, lone surrogate halves among them (JSON text can spell "\ud800").
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 4 }), {
    maxKeys: 2,
  }),
  fc.constantFrom<Json>(-1, 0, 1e308, 2 ** 53 + 1, '', ' ', [], {}, ['files:read', 'FILES'], { id: 'did:key:z6Mk' }),
);

function requestFor(op: Operation) {
  const pathValue = fc.oneof(
    fc.constantFrom(...HOSTILE).map((s) => ({ raw: s })),
    fc.string({ maxLength: 40 }).map((s) => ({ raw: encodeURIComponent(s) })),
    fc.constantFrom(...realValues).map((s) => ({ raw: encodeURIComponent(s) })),
  );
  return fc.record({
    params: fc.array(pathValue, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
    query: fc.dictionary(
      fc.constantFrom('', ...op.queryParams),
      fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('-1', '0', '1e9', 'NaN', ...realValues)),
      { maxKeys: 3 },
    ),
    body: fc.oneof(
      value,
      fc.dictionary(
        fc.constantFrom('extra', ...(op.bodyMembers ?? [])),
        fc.oneof(value, fc.constantFrom<Json>(...realValues)),
        { maxKeys: 6 },
      ),
    ),
    admin: fc.boolean(),
    rawBody: fc.constantFrom(
      undefined,
      '{"a":',
      '['.repeat(5000) + ']'.repeat(5000),
      '{"__proto__":{"x":1}}',
      '{"a":1,"a":2}',
    ),
  });
}

describe('the issuer under arbitrary requests', () => {
  it('answers every operation deliberately: never 5xx, no stack trace, JSON bodies', async () => {
    expect(operations.length).toBeGreaterThan(30);
    const statuses = new Map<number, number>();
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(requestFor(op), async (request) => {
          let path = op.path;
          op.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, request.params[i]!.raw)));
          const query = new URLSearchParams(request.query).toString();
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (request.admin) headers.authorization = `Bearer ${TEST_ADMIN_KEY}`;
          const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
          const response = await issuer.fetch(`${issuer.url}${path}${query ? `?${query}` : ''}`, {
            method: op.method,
            headers,
            ...(hasBody ? { body: request.rawBody ?? JSON.stringify(request.body) } : {}),
            signal: AbortSignal.timeout(15_000),
          });
          const text = await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const where = `${op.method} ${path} → ${response.status} ${text.slice(0, 300)}`;
          expect(response.status, where).toBeLessThan(500);
          expect(text, where).not.toMatch(/\n\s+at |\.ts:\d+|node_modules|TypeError|RangeError|SyntaxError: /);
          if (text !== '' && (response.headers.get('content-type') ?? '').includes('json'))
            expect(() => JSON.parse(text), where).not.toThrow();
          if (response.status >= 400 && response.status !== 403 && op.path.startsWith('/v1/')) {
            expect(JSON.parse(text), where).toMatchObject({
              error: { code: expect.stringMatching(/^[A-Z][A-Z_]+$/), message: expect.any(String) },
            });
          }
        }),
        { numRuns: 40 },
      );
    }
    // Some requests were served, most refused (by validation, by authentication, for want of a record).
    expect([200, 400, 401, 404].filter((status) => statuses.has(status))).toEqual([200, 400, 401, 404]);
  }, 600_000);

  it('refuses a lone surrogate in any member of any JSON body, string or document, as 400 MALFORMED_JSON (I-JSON, RFC 7493 §2.1)', async () => {
    let sent = 0;
    for (const op of operations.filter((o) => o.bodyMembers !== undefined && o.bodyMembers.length > 0)) {
      let path = op.path;
      // A real DID where a DID goes, else a plain id: the path must pass for the body to be read.
      for (const name of op.pathParams)
        path = path.replace(
          `{${name}}`,
          encodeURIComponent(name === 'did' ? (realValues[0] as string) : crypto.randomUUID()),
        );
      for (const member of op.bodyMembers as string[]) {
        // As a value, as a document holding it, and as a member name.
        for (const body of [
          `{"${member}":"x\\ud800"}`,
          `{"${member}":{"note":"\\udc00y"}}`,
          `{"${member}":{"a\\ud83d":1}}`,
        ]) {
          const response = await issuer.fetch(`${issuer.url}${path}`, {
            method: op.method,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_KEY}` },
            body,
          });
          const where = `${op.method} ${path} ${body} → ${response.status}`;
          expect(response.status, where).toBe(400);
          expect(((await response.json()) as { error: { code: string } }).error.code, where).toBe('MALFORMED_JSON');
          sent++;
        }
      }
    }
    expect(sent).toBeGreaterThan(80);
  }, 120_000);

  it('afterwards: the audit chain is intact and the issuer serves', async () => {
    expect((await issuer.call('/v1/audit/verify', { admin: true })).json).toMatchObject({ intact: true });
    expect((await issuer.call('/v1/health')).status).toBe(200);
  });
});
