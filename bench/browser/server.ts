// The bench's origins: one Node HTTP handler on 127.0.0.1 (a secure context, so WebCrypto
// Ed25519 and service workers are there), listened on once per origin the bench needs. It
// serves the page, the bundles, and a stand-in API that reads each request's body and answers
// a small JSON document, so that a fetch through the Mandate worker and one without it end at
// the same server doing the same work.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The built scripts, by the path each is served at. */
export type Scripts = Record<string, string>;

export interface Origin {
  url: string;
  close(): Promise<void>;
}

/**
 * The page: the production worker's built page helper (registerVerifier) and the bench's page
 * bundle, both on globalThis once loaded.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><title>mandate browser bench</title>
<script type="module">
  import { registerVerifier } from '/verifier-register.js';
  globalThis.mandateRegister = registerVerifier;
</script>
<script type="module" src="/bench-page.js"></script>`;

async function drain(req: IncomingMessage): Promise<number> {
  let bytes = 0;
  for await (const chunk of req) bytes += (chunk as Buffer).length;
  return bytes;
}

function handler(scripts: Scripts) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const script = scripts[path];
    if (script !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(script);
    } else if (path.startsWith('/api/') || path.startsWith('/public/')) {
      const bodyBytes = await drain(req);
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ ok: true, path, bodyBytes, agent: req.headers['x-mandate-agent-did'] ?? null }));
    } else if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  };
}

/** A new origin (its own port) serving `scripts`, the page and the stand-in API. */
export async function serveOrigin(scripts: Scripts): Promise<Origin> {
  const serve = handler(scripts);
  const server = createServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
