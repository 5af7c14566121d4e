/**
 * Everything the page's origin answers: its configuration, the operator's routes, the issuer
 * relay, the provider (and its API), the provider's MCP server, then the built page itself.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { IssuerClient } from '../../wallet/client/issuer-client.ts';
import type { DemoProvider } from '../provider.ts';
import { demoErrorResponse, errorJson } from './error-json.ts';
import { relayToIssuer } from './issuer-relay.ts';
import { mcpRoutes } from './mcp-server.ts';
import { operatorRoutes } from './operator.ts';
import { contentSecurityPolicy, staticFile } from './static-files.ts';
import { DEMO_SCOPES, DEMO_TARGET, mcpResourceOf } from './story.ts';

export interface PageRoutesOptions {
  /** The page's origin, e.g. http://127.0.0.1:5173. */
  origin: string;
  /** Where the page and the worker were built. */
  buildDir: string;
  issuerDid: string;
  issuerUrl: string;
  /** The issuer's API with the admin key, for the operator's routes. */
  operator: IssuerClient;
  provider: DemoProvider;
}

/** What the page reads first (`/demo/config.json`): who is who, and the story's target and scopes. */
function pageConfig(options: PageRoutesOptions) {
  return {
    issuerDid: options.issuerDid,
    issuerUrl: options.issuerUrl,
    issuerRelay: `${options.origin}/issuer`,
    providerDid: options.provider.did,
    target: DEMO_TARGET,
    scopes: DEMO_SCOPES,
    mcpResource: mcpResourceOf(options.origin),
  };
}

export function pageRoutes(options: PageRoutesOptions): Hono {
  const csp = contentSecurityPolicy(options.issuerUrl);
  const routes = new Hono();
  // The same bound as the provider's: no request of this demo needs more.
  routes.use(
    '*',
    bodyLimit({
      maxSize: 32 * 1024,
      onError: (c) =>
        c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'request bodies are limited to 32 KiB' } }, 413),
    }),
  );
  routes.get('/demo/config.json', (c) => c.json(pageConfig(options), 200, { 'cache-control': 'no-store' }));
  routes.route('/', operatorRoutes(options.operator, mcpResourceOf(options.origin)));
  routes.all('/issuer/*', (c) => relayToIssuer(c, options.issuerUrl));
  routes.route('/', options.provider.app);
  routes.route(
    '/',
    mcpRoutes({
      resource: mcpResourceOf(options.origin),
      issuerUrl: options.issuerUrl,
      recordEvent: (event) => options.provider.recordEvent(event),
    }),
  );
  routes.get(
    '*',
    async (c) => (await staticFile(options.buildDir, c.req.path, csp)) ?? errorJson('NOT_FOUND', 'no such page', 404),
  );
  routes.onError(demoErrorResponse);
  return routes;
}
