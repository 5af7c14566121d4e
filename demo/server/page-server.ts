/**
 * The page's origin on 127.0.0.1. It listens before anything else is ready, so that a busy port
 * fails at once rather than after the build, and answers 502 STARTING until its routes are set.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { errorJson } from './error-json.ts';
import type { UndoStack } from './undo.ts';

export interface PageServer {
  /** e.g. http://127.0.0.1:5173 */
  origin: string;
  /** From now on, `routes` answers every request. */
  serve(routes: Hono): void;
}

function listen(app: Hono, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(server));
    server.once('error', reject);
  });
}

function closeServer(server: ServerType): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    if ('closeAllConnections' in server) server.closeAllConnections();
  });
}

export async function startPageServer(port: number, undo: UndoStack): Promise<PageServer> {
  const app = new Hono();
  let handler: (request: Request) => Response | Promise<Response> = () =>
    errorJson('STARTING', 'the demo is starting', 502);
  app.all('*', (c) => handler(c.req.raw));
  const server = await listen(app, port);
  undo.push(() => closeServer(server));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(routes) {
      handler = (request) => routes.fetch(request);
    },
  };
}
