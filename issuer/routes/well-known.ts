/**
 * Public documents: the issuer's did:web document (/.well-known/did.json, did:web §3.2), hosted
 * agents' documents (/agents/:id/did.json, path form `did:web:<domain>:agents:<id>`), the
 * Mandate JSON-LD context, and the liveness and readiness probes.
 */
import { createRoute } from '@hono/zod-openapi';
import { AgentDocumentParamSchema } from '../../wallet/contract/dids.ts';
import { HealthSchema, ReadySchema } from '../../wallet/contract/health.ts';
import type { Context } from 'hono';
import { MANDATE_CONTEXT } from '../../wallet/vc/context.ts';
import type { IssuerContext } from '../boot.ts';
import type { IssuerEnv } from '../http/env.ts';
import { createRouter } from '../http/errors.ts';
import { refuse } from '../refusal.ts';
import { wireObject } from '../services/wire.ts';
import { agentWebDid } from '../services/did-documents.ts';
import { servedDidDocument } from '../services/dids.ts';
import { checkReadiness } from '../services/readiness.ts';
import { ErrorSchema, errorResponses, JsonObjectSchema, jsonResponse } from './schemas.ts';

const DID_JSON = 'application/did+json';

const issuerDocument = createRoute({
  method: 'get',
  path: '/.well-known/did.json',
  tags: ['DIDs'],
  summary: "The issuer's DID document (did:web). Public.",
  responses: {
    200: { description: 'DID document', content: { [DID_JSON]: { schema: JsonObjectSchema } } },
    ...errorResponses(404),
  },
});

const agentDocument = createRoute({
  method: 'get',
  path: '/agents/{id}/did.json',
  tags: ['DIDs'],
  summary: "A hosted agent's DID document (did:web path form). Public.",
  request: { params: AgentDocumentParamSchema },
  responses: {
    200: { description: 'DID document', content: { [DID_JSON]: { schema: JsonObjectSchema } } },
    ...errorResponses(404, 410),
  },
});

const mandateContext = createRoute({
  method: 'get',
  path: '/contexts/mandate/v1',
  tags: ['Documents'],
  summary: 'The Mandate JSON-LD context (https://mandate.dev/contexts/v1). Public.',
  responses: {
    200: { description: 'JSON-LD context', content: { 'application/ld+json': { schema: JsonObjectSchema } } },
  },
});

const health = createRoute({
  method: 'get',
  path: '/v1/health',
  tags: ['Operations'],
  summary: 'Liveness and the issuer DID: 200 while the process answers, whatever its database and Redis do. Public.',
  responses: { 200: jsonResponse(HealthSchema, 'Alive') },
});

const ready = createRoute({
  method: 'get',
  path: '/v1/ready',
  tags: ['Operations'],
  summary:
    'Readiness: 200 when the database (and Redis, `cache`, with SERVICE_CACHE_ADAPTER=redis) answers; 503 NOT_READY (details.checks names what failed) or SHUTTING_DOWN (after SIGTERM). Public.',
  responses: {
    200: jsonResponse(ReadySchema, 'Ready: every dependency answered'),
    503: {
      description: 'Not ready (NOT_READY, SHUTTING_DOWN), see Retry-After',
      content: { 'application/json': { schema: ErrorSchema } },
    },
  },
});

export function wellKnownRoutes(ctx: IssuerContext) {
  const app = createRouter();
  const serveHosted = async (c: Context<IssuerEnv>, did: string) => {
    return c.json(await servedDidDocument(ctx, did), 200, {
      'content-type': DID_JSON,
      'cache-control': 'no-cache',
    });
  };

  app.openapi(issuerDocument, (c) => {
    if (ctx.config.didMethod !== 'web')
      throw refuse('DID_NOT_FOUND', `this issuer is ${ctx.issuer.did} (DID_METHOD=key): there is no did:web document`);
    return serveHosted(c, ctx.issuer.did);
  });
  app.openapi(agentDocument, (c) => {
    if (ctx.config.didMethod !== 'web')
      throw refuse('DID_NOT_FOUND', 'DID_METHOD=key: agents have did:key identifiers, no hosted documents');
    return serveHosted(c, agentWebDid(ctx.config.didDomain ?? '', c.req.valid('param').id));
  });
  app.openapi(mandateContext, (c) =>
    c.json(wireObject(MANDATE_CONTEXT), 200, {
      'content-type': 'application/ld+json',
      'cache-control': 'public, max-age=86400',
    }),
  );
  app.openapi(health, (c) => c.json({ ok: true as const, issuer: ctx.issuer.did }, 200));
  app.openapi(ready, async (c) => {
    const readiness = await checkReadiness(ctx.readinessChecks);
    if (readiness.ready) return c.json({ ok: true as const, checks: readiness.checks }, 200);
    // Not audited: a probe every few seconds against a database that is down would flood the
    // log (and could not be written to it anyway).
    throw refuse('NOT_READY', `not ready: ${readiness.failed.join(', ')} did not answer`, {
      details: { checks: readiness.checks },
      retryAfterSeconds: 1,
      audit: false,
    });
  });
  return app;
}
