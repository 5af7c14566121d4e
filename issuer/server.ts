/**
 * Starting the issuer: bind the port first (so `port: 0` gets a real one), then build the
 * context with URLs that name that port, then serve the app. Used by `npm start` (main.ts),
 * the tests and the benchmarks.
 */
import { healthEndpoints } from '../wallet/contract/health.ts';
import type { AddressInfo } from 'node:net';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app.ts';
import { baseUrlFor, loadConfig, withBoundPort, type Env, type IssuerConfig } from './config/index.ts';
import { createIssuerContext, type IssuerContext } from './boot.ts';
import type { IssuerEnv } from './http/env.ts';
import { errorBody } from './http/errors.ts';
import type { Logger } from './log.ts';

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

/** How a shutdown ended. */
export interface ShutdownOutcome {
  /** true: every in-flight request finished; false: the deadline passed and open connections were cut. */
  drained: boolean;
}

export interface RunningIssuer {
  /** Where this process listens, e.g. http://127.0.0.1:53211 (API_BASE_URL may differ behind a proxy). */
  url: string;
  app: OpenAPIHono<IssuerEnv>;
  ctx: IssuerContext;
  server: ServerType;
  /**
   * Graceful shutdown: stops accepting connections, lets in-flight requests finish (each answer
   * then closes its connection, and GET /v1/ready answers 503 SHUTTING_DOWN meanwhile), cuts what
   * is still open after `timeoutMs` (default SERVICE_SHUTDOWN_TIMEOUT_SECONDS), then closes the
   * database. Later calls return the first call's promise.
   */
  close(options?: { timeoutMs?: number }): Promise<ShutdownOutcome>;
}

type FetchHandler = (request: Request, env: unknown) => Response | Promise<Response>;

const READY_PATH = healthEndpoints.ready.path;
/** While draining, how often sockets that turned idle are closed. */
const IDLE_SWEEP_MS = 250;

/** `response` with `Connection: close`, so Node ends its keep-alive socket after it is sent. */
function closingConnection(response: Response): Response {
  try {
    response.headers.set('connection', 'close');
    return response;
  } catch {
    // Immutable headers (a Response from fetch): copy it.
    const copy = new Response(response.body, response);
    copy.headers.set('connection', 'close');
    return copy;
  }
}

/**
 * Stops accepting, waits for open requests until `timeoutMs`, then cuts what is left. Keep-alive
 * sockets would otherwise hold `server.close()` open for their idle timeout (65 s): idle ones are
 * closed at once, busy ones after their answer (which carries `Connection: close`).
 */
async function drain(server: ServerType, timeoutMs: number): Promise<ShutdownOutcome> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const closeIdle = () => {
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  };
  closeIdle();
  // An answer already on its way when the drain began went out without `Connection: close`:
  // its socket turns idle later, and is closed on the next sweep.
  const sweep = setInterval(closeIdle, IDLE_SWEEP_MS);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([closed.then(() => 'drained' as const), deadline]);
  clearTimeout(timer);
  clearInterval(sweep);
  if (outcome === 'drained') return { drained: true };
  if ('closeAllConnections' in server) server.closeAllConnections();
  await closed;
  return { drained: false };
}

function listen(port: number, hostname: string, fetch: FetchHandler): Promise<ServerType> {
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
  let handler: FetchHandler | undefined = undefined;
  let draining = false;
  const server = await listen(options.port ?? loaded.port, host, async (request, env) => {
    if (!handler)
      return Response.json(errorBody('SERVICE_UNAVAILABLE', 'the issuer is starting; retry shortly'), {
        status: 503,
        headers: { 'retry-after': '1' },
      });
    if (!draining) return handler(request, env);
    // A balancer still holding a keep-alive connection learns to route elsewhere.
    if (new URL(request.url).pathname === READY_PATH)
      return Response.json(errorBody('SHUTTING_DOWN', 'this process is shutting down'), {
        status: 503,
        headers: { 'retry-after': '1', connection: 'close' },
      });
    return closingConnection(await handler(request, env));
  });
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

  let closing: Promise<ShutdownOutcome> | undefined;
  const shutdown = async (timeoutMs: number): Promise<ShutdownOutcome> => {
    draining = true;
    const outcome = await drain(server, timeoutMs);
    await ctx.close();
    return outcome;
  };
  return {
    url: baseUrlFor(host, port),
    app,
    ctx,
    server,
    close(closeOptions = {}) {
      closing ??= shutdown(closeOptions.timeoutMs ?? loaded.shutdownTimeoutMs);
      return closing;
    },
  };
}
