/**
 * The issuer's HTTP application: middleware, then the route table. Handlers live in
 * routes/*.ts (parse → service → shape); this file only composes.
 *
 * Middleware, outermost first:
 * 1. requestId (X-Request-Id in and out), 2. JSON request log, 3. `Connection: close` on an
 * answer given before the body was read, 4. secure headers, 5. `actor` = anonymous (admin auth
 * upgrades it), 6. rate limits (429 + Retry-After). Then, per route of the table
 * (http/mount.ts): 7. its authentication (an operation that needs a key answers 401 before
 * anything else is judged), 8. the body limit (413, default 64 KiB), 9. JSON-only bodies (415;
 * I-JSON, http/json-bodies.ts) — form-encoded where the entry says so, 10. on the entries marked
 * `publicDocument` (DID documents, status lists, the context, key sets, metadata): CORS for any
 * origin (GET), `Cross-Origin-Resource-Policy: cross-origin` and etag (304 on If-None-Match),
 * because verifiers in browser pages and service workers of other origins must fetch them.
 * Errors anywhere become `{error: {code, message, details?}}` (http/errors.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from './http/body-limit.ts';
import { cors } from 'hono/cors';
import { etag } from 'hono/etag';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import type { IssuerContext } from './boot.ts';
import type { IssuerEnv } from './http/env.ts';
import { createErrorHandler, notFoundHandler, validationHook } from './http/errors.ts';
import { refuse } from './refusal.ts';
import { requestLogger } from './http/logger.ts';
import { closeUnreadBodies } from './http/close-unread-body.ts';
import { jsonBodies } from './http/json-bodies.ts';
import { rateLimit } from './http/rate-limit.ts';
import { agentHandlers } from './routes/agents.ts';
import { credentialHandlers } from './routes/credentials.ts';
import { enrollmentHandlers } from './routes/enrollment.ts';
import { statusListHandlers } from './routes/status-lists.ts';
import { documentHandlers, healthHandlers } from './routes/well-known.ts';
import { apiDocsHandlers } from './routes/api-docs.ts';
import { auditHandlers } from './routes/audit.ts';
import { challengeHandlers } from './routes/challenges.ts';
import { didHandlers } from './routes/dids.ts';
import { vcApiHandlers } from './routes/vc-api.ts';
import { vpVerifyHandlers } from './routes/vp-verify.ts';
import { sessionTokensFor } from './services/session-tokens.ts';
import { oauthHandlers } from './routes/oauth.ts';
import { consoleRoutes } from './routes/console.ts';
import { consoleSupportHandlers } from './routes/console-support.ts';
import { ROUTES } from '../wallet/contract/routes.ts';
import { createAuthenticators } from './http/authenticators.ts';
import { mount, type MountOptions } from './http/mount.ts';
import { isAgentSecret } from './services/agent-secrets.ts';

/** Readable cross-origin (Fetch §3.7 CORP); set before secureHeaders, which does not overwrite it. */
const crossOriginReadable: MiddlewareHandler<IssuerEnv> = async (c, next) => {
  await next();
  c.header('Cross-Origin-Resource-Policy', 'cross-origin');
};

/** CORS for any origin, reading only (Fetch §3.2.5): the public documents' readers are verifiers in other origins. */
const publicCors = cors({
  origin: '*',
  allowMethods: ['GET', 'HEAD'],
  // The key directory's signatures (RFC 9421 §4, RFC 9530) and its next page (RFC 8288), which a
  // verifier in a page or a service worker must read.
  exposeHeaders: ['ETag', 'Cache-Control', 'Content-Digest', 'Signature-Input', 'Signature', 'Link'],
  maxAge: 86_400,
});

export function createApp(ctx: IssuerContext): OpenAPIHono<IssuerEnv> {
  const app = new OpenAPIHono<IssuerEnv>({ defaultHook: validationHook });
  app.openAPIRegistry.registerComponent('securitySchemes', 'adminBearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'SERVICE_ADMIN_API_KEY',
  });

  app.use('*', requestId());
  app.use('*', requestLogger(ctx.log));
  app.use('*', closeUnreadBodies());
  app.use('*', secureHeaders({ overwrite: false }));
  app.use('*', async (c, next) => {
    c.set('actor', 'anonymous');
    await next();
  });
  app.use('*', rateLimit(ctx.rateLimits));
  app.onError(createErrorHandler({ audit: ctx.audit, log: ctx.log }));
  app.notFound(notFoundHandler);

  // Route table. One session-token key serves session tokens and OAuth access tokens.
  const sessions = sessionTokensFor(ctx);
  const options: MountOptions = {
    authenticators: createAuthenticators({
      config: ctx.config,
      isAgentSecret: (did, secret) => isAgentSecret(ctx, did, secret),
    }),
    bodyLimit: bodyLimit({
      maxSize: ctx.config.bodyLimitBytes,
      onError: () => {
        throw refuse('PAYLOAD_TOO_LARGE', `request bodies are limited to ${ctx.config.bodyLimitBytes} bytes`);
      },
    }),
    bodies: { json: jsonBodies({ media: 'json' }), form: jsonBodies({ media: 'form' }) },
    publicDocument: [publicCors, crossOriginReadable, etag()],
  };
  mount(
    app,
    ROUTES,
    {
      ...statusListHandlers(ctx),
      ...enrollmentHandlers(ctx),
      ...consoleSupportHandlers(ctx),
      ...vcApiHandlers(ctx),
      ...agentHandlers(ctx),
      ...oauthHandlers(ctx, sessions),
      ...apiDocsHandlers(ctx, app),
      ...credentialHandlers(ctx),
      ...didHandlers(ctx),
      ...auditHandlers(ctx),
      ...challengeHandlers(ctx),
      ...documentHandlers(ctx),
      ...healthHandlers(ctx),
      ...vpVerifyHandlers(ctx, sessions),
    },
    options,
  );
  app.route('/', consoleRoutes(ctx));

  return app;
}
