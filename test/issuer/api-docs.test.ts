// The published contract: GET /v1/openapi.json is generated from the schemas that validate
// requests, and GET /docs renders it into a page that works on a closed network (no script, no
// external asset) and cannot be made to run anything.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml, renderApiReference, type OpenApiDocument } from '../../issuer/http/api-reference.ts';
import { startTestIssuer, type TestIssuer } from '../support/issuer.ts';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.dispose());

/** Every endpoint of the issue, as OpenAPI paths. */
const ENDPOINTS: Array<[string, string]> = [
  ['get', '/.well-known/did.json'],
  ['get', '/agents/{id}/did.json'],
  ['get', '/.well-known/http-message-signatures-directory'],
  ['get', '/agents/{id}/signature-agent-card'],
  ['post', '/v1/enrollment-tokens'],
  ['post', '/v1/onboard'],
  ['post', '/v1/onboard/verify'],
  ['post', '/v1/agents/{did}/vp'],
  ['post', '/v1/agents/{did}/delegations'],
  ['post', '/v1/vp/verify'],
  ['get', '/v1/sessions/public-key'],
  ['get', '/.well-known/jwks.json'],
  ['post', '/v1/vcs'],
  ['post', '/v1/vcs/{vcId}/revoke'],
  ['post', '/v1/vcs/{vcId}/renew'],
  ['get', '/v1/vcs/{vcId}'],
  ['post', '/v1/status-list'],
  ['get', '/v1/status-list/{listId}'],
  ['post', '/v1/dids'],
  ['get', '/v1/dids/{did}'],
  ['post', '/v1/dids/{did}/services'],
  ['delete', '/v1/dids/{did}/services/{endpointId}'],
  ['post', '/v1/dids/{did}/deactivate'],
  ['post', '/v1/challenges'],
  ['post', '/v1/challenges/{challengeId}/verify'],
  ['get', '/v1/audit'],
  ['post', '/v1/audit/events'],
  ['get', '/v1/audit/verify'],
  ['post', '/credentials/issue'],
  ['post', '/credentials/verify'],
  ['post', '/presentations/verify'],
];

describe('GET /v1/openapi.json', () => {
  it('describes every endpoint of the issue with the schemas that validate it', async () => {
    const res = await issuer.call('/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe('3.1.0');
    for (const [method, path] of ENDPOINTS)
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    // The request schema IS the validator: its required members and limits are published.
    const vpVerify = doc.components.schemas.VpVerifyRequest;
    expect(vpVerify.required).toEqual(['presentation']);
    expect(Object.keys(vpVerify.properties)).toEqual([
      'presentation',
      'expectedTarget',
      'challenge',
      'requiredScopes',
      'session',
    ]);
    expect(doc.components.securitySchemes.adminBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Who may call: admin endpoints declare the bearer scheme, public ones none.
    expect(doc.paths['/v1/dids'].post.security).toEqual([{ adminBearer: [] }]);
    expect(doc.paths['/v1/vp/verify'].post.security).toBeUndefined();
    expect(doc.servers).toEqual([{ url: issuer.running.ctx.config.apiBaseUrl }]);
  });

  it('is a valid OpenAPI 3.1 document (the OpenAPI Initiative schema, with every $ref resolved)', async () => {
    const doc = (await issuer.call('/v1/openapi.json')).json;
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // Every $ref points into the document (resolveRefs throws on one that does not).
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('matches what the server enforces: a request the schema forbids is refused', async () => {
    const doc = (await issuer.call('/v1/openapi.json')).json;
    expect(doc.components.schemas.UserChallengeRequest.additionalProperties).toBe(false);
    const res = await issuer.call('/v1/challenges', {
      body: { userDid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', extra: 1 },
    });
    expect(res.status).toBe(400);
  });
});

describe('GET /docs', () => {
  it('renders a self-contained reference: no script, no external asset, a strict CSP, every endpoint', async () => {
    const res = await fetch(`${issuer.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//i);
    for (const [method, path] of ENDPOINTS) expect(html, path).toContain(`${method.toUpperCase()} ${escapeHtml(path)}`);
    expect(html).toContain('id="schema-VpVerifyRequest"');
    expect(html).toContain('SERVICE_ADMIN_API_KEY');
  });
});

describe('renderApiReference', () => {
  it('escapes everything taken from the document', () => {
    const doc: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: '<script>alert(1)</script>', version: '"1"' },
      paths: {
        '/x/{id}': {
          post: {
            tags: ['<b>tag</b>'],
            summary: '<img src=x onerror=alert(1)>',
            parameters: [{ name: 'id"><script>', in: 'path', required: true, schema: { type: 'string' } }],
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } } },
            responses: { 200: { description: '<i>ok</i>' } },
          },
        },
      },
      components: {
        schemas: {
          Body: {
            type: 'object',
            required: ['a'],
            properties: {
              '<a>': { type: 'string', description: '</li><script>' },
              self: { $ref: '#/components/schemas/Body' },
            },
          },
        },
      },
    };
    const html = renderApiReference(doc);
    expect(html).not.toMatch(/<script|<img|<b>|<i>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // A recursive schema is linked, not expanded forever.
    expect(html).toContain('href="#schema-Body"');
  });

  it('shows who may call each operation, parameters, bodies and responses', () => {
    const html = renderApiReference({
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/a': {
          get: {
            tags: ['A'],
            security: [{ adminBearer: [] }],
            responses: { 401: { description: 'no key' } },
            parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 500 } }],
          },
          post: {
            tags: ['A'],
            requestBody: {
              content: {
                'application/json': { schema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } } },
              },
            },
            responses: { 201: { description: 'made' } },
          },
        },
      },
      components: {
        securitySchemes: { adminBearer: { type: 'http', scheme: 'bearer', description: 'the admin key' } },
      },
    });
    expect(html).toContain('<span class="who admin" title="adminBearer: the admin key">admin</span>');
    expect(html).toContain('<span class="who public">public</span>');
    expect(html).toContain('<code>limit</code>');
    expect(html).toContain('≥ 1');
    expect(html).toContain('no key');
  });
});
