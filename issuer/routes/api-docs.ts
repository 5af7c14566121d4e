/**
 * The published contract (wallet/contract/api-docs.ts `apiDocsEndpoints`): `GET /v1/openapi.json`,
 * generated from the route table — the very zod schemas that validate requests
 * (@hono/zod-openapi, OpenAPI 3.1) — and `GET /docs`, the same document rendered on the server
 * into one HTML page without script or external assets (http/api-reference.ts). Both public.
 *
 * Generated from the ROOT app (not a sub-router), so the document covers every route of the app.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { apiDocsEndpoints } from '../../wallet/contract/api-docs.ts';
import type { IssuerContext } from '../boot.ts';
import type { IssuerEnv } from '../http/env.ts';
import type { HandlersOf } from '../http/mount.ts';
import { renderApiReference } from '../http/api-reference.ts';

const TAGS = [
  { name: 'Enrollment', description: 'Enrollment tokens (operator) and agent onboarding (self or server custody).' },
  { name: 'Agents', description: 'Enrolled agents; what the server signs for server-custody agents.' },
  { name: 'Credentials', description: 'Agent credentials: direct issuance, revocation, renewal.' },
  { name: 'Status lists', description: 'Bitstring Status List credentials (revocation, suspension).' },
  { name: 'Verification', description: 'Presentation verification and session tokens.' },
  { name: 'Consent', description: 'Single-use user challenges; consent evidence.' },
  { name: 'DIDs', description: 'DID documents hosted by this issuer and their lifecycle.' },
  { name: 'Audit', description: 'The append-only, hash-chained audit log.' },
  { name: 'VC-API', description: 'W3C CCG VC-API endpoints for standard wallets and test suites.' },
  { name: 'Documents', description: 'Contexts and other static documents.' },
  { name: 'Operations', description: 'Health and the API description itself.' },
];

function documentConfig(ctx: IssuerContext) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mandate issuer',
      version: '1',
      description: `Verifiable identities and bounded, delegable authority for software agents. Issuer DID: ${ctx.issuer.did}. Errors: {"error": {"code", "message", "details"?}}. Admin endpoints take "Authorization: Bearer <SERVICE_ADMIN_API_KEY>".`,
    },
    servers: [{ url: ctx.config.apiBaseUrl }],
    tags: TAGS,
  };
}

/** GET /v1/openapi.json and GET /docs of the root app `app` (read when asked: every route is mounted by then). */
export function apiDocsHandlers(ctx: IssuerContext, app: OpenAPIHono<IssuerEnv>): HandlersOf<typeof apiDocsEndpoints> {
  let rendered: string | undefined;
  return {
    openApiDocument: (_, c) => c.json(app.getOpenAPI31Document(documentConfig(ctx))),
    apiReference: (_, c) => {
      // Routes are fixed once the app is built: render once.
      rendered ??= renderApiReference(app.getOpenAPI31Document(documentConfig(ctx)));
      c.header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      c.header('cache-control', 'no-cache');
      return c.html(rendered);
    },
  };
}
