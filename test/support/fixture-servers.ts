// A small real HTTP server on 127.0.0.1 that tests in BOTH projects use to host documents
// (did:web documents, a ledger mirror's responses, status lists) and to misbehave on purpose
// (slow, oversized, redirecting). Tests publish with `PUT /host/<path>` and read back
// `GET /<path>`. CORS is open so pages in Chromium can fetch it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Hosted {
  body: Buffer;
  contentType: string;
  status: number;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startFixtureServers(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const hosted = new Map<string, Hosted>();
  const hits = new Map<string, number>();

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-methods', 'GET, PUT, DELETE, OPTIONS');
    res.setHeader('access-control-allow-headers', 'content-type, x-status');
    res.setHeader('access-control-expose-headers', 'etag, cache-control');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();

    if (url.pathname.startsWith('/host/')) {
      const path = url.pathname.slice('/host'.length);
      if (req.method === 'PUT') {
        hosted.set(path, {
          body: await readBody(req),
          contentType: req.headers['content-type'] ?? 'application/json',
          status: Number(req.headers['x-status'] ?? 200),
        });
        return void res.writeHead(204).end();
      }
      if (req.method === 'DELETE') {
        hosted.delete(path);
        return void res.writeHead(204).end();
      }
    }
    if (url.pathname === '/hits') {
      const path = url.searchParams.get('path') ?? '';
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ hits: hits.get(path) ?? 0 }));
    }
    if (url.pathname.startsWith('/slow/')) {
      const ms = Number(url.pathname.split('/')[2] ?? 5000);
      const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), ms);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (url.pathname.startsWith('/big/')) {
      const bytes = Number(url.pathname.split('/')[2] ?? 1_000_000);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(`{"pad":"${'x'.repeat(bytes)}"}`);
    }
    if (url.pathname === '/redirect') {
      return void res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    }

    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const doc = hosted.get(url.pathname);
    if (!doc) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    res.writeHead(doc.status, { 'content-type': doc.contentType }).end(doc.body);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
