/**
 * Starting the issuer: bind the port first (so `port: 0` gets a real one), then build the
 * context with URLs that name that port, then serve the app. Used by `npm start` (main.ts),
 * the tests and the benchmarks.
 */
import type { AddressInfo } from 'node:net';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app.ts';
import { baseUrlFor, loadConfig, withBoundPort, type Env, type IssuerConfig } from './config.ts';
import { createIssuerContext, type IssuerContext } from './context.ts';
import type { IssuerEnv } from './http/env.ts';
import { errorBody } from './http/errors.ts';
import type { Logger } from './http/logger.ts';

export interface StartIssuerOptions {
  /** A loaded configuration (default: loadConfig(env)). */
  config?: IssuerConfig;
  /** Environment to load the configuration from when `config` is absent (default process.env). */
  env?: Env;
  /** Overrides the configured port; 0 picks a free one. */
  port?: number;
  host?: string;
  log?: Logger;
  now?: () => number;
  /**
   * Called once the port is bound and before the issuer is ready (requests meanwhile get 503
   * SERVICE_UNAVAILABLE with Retry-After), e.g. to announce the address early.
   */
  onListening?: (url: string) => void | Promise<void>;
}

export interface RunningIssuer {
  /** Where this process listens, e.g. http://127.0.0.1:53211 (API_BASE_URL may differ behind a proxy). */
  url: string;
  app: OpenAPIHono<IssuerEnv>;
  ctx: IssuerContext;
  server: ServerType;
  /** Stops accepting connections, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

function listen(
  port: number,
  hostname: string,
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }, () => resolve(server));
    // Idle keep-alive connections outlive a load balancer's idle timeout (commonly 60 s): a
    // server that closes first races the client's next request on that socket (ECONNRESET,
    // or a 502 from the balancer). headersTimeout stays above it, as Node advises.
    if ('keepAliveTimeout' in server) {
      server.keepAliveTimeout = 65_000;
      server.headersTimeout = 66_000;
    }
    server.once('error', reject);
  });
}

export async function startIssuer(options: StartIssuerOptions = {}): Promise<RunningIssuer> {
  const loaded = options.config ?? loadConfig(options.env ?? process.env);
  const host = options.host ?? loaded.host;
  let handler: ((request: Request, env: unknown) => Response | Promise<Response>) | undefined = undefined;
  const server = await listen(options.port ?? loaded.port, host, (request, env) =>
    handler
      ? handler(request, env)
      : Response.json(errorBody('SERVICE_UNAVAILABLE', 'the issuer is starting; retry shortly'), {
          status: 503,
          headers: { 'retry-after': '1' },
        }),
  );
  const port = (server.address() as AddressInfo).port;
  let ctx: IssuerContext;
  try {
    await options.onListening?.(baseUrlFor(host, port));
    ctx = await createIssuerContext(withBoundPort({ ...loaded, host }, port), {
      ...(options.log ? { log: options.log } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  const app = createApp(ctx);
  handler = (request, env) => app.fetch(request, env);

  let closing: Promise<void> | undefined;
  return {
    url: baseUrlFor(host, port),
    app,
    ctx,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          ctx.close();
          resolve();
        });
        // Idle keep-alive connections would hold close() open forever.
        (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      });
      return closing;
    },
  };
}
