/**
 * The operator console (docs/console.md): a static single-page app built by `buildConsole()`
 * into dist/console/, served here at /console. It is an admin tool, so it gets the strictest
 * headers the app allows: a CSP of 'self' only (no inline script or style, no framing), no
 * referrer, no caching of the page itself (assets are content-hashed, so they may be cached).
 *
 * Files are looked up by name in the build's own listing, never by joining a path from the
 * URL, so no request can read outside dist/console/.
 *
 * Not route-table entries (wallet/contract): these are static files and a redirect, not API
 * operations — no client calls them by name, their answers are HTML/assets with their own
 * headers (and a plain-text 404 for an unknown asset, not the API's error body), and
 * `/console` and `/console/` are one page. Nothing in the table would be used; plain routes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { IssuerContext } from '../boot.ts';
import type { IssuerEnv } from '../http/env.ts';

/**
 * The package root: two levels above this source file (issuer/routes/), four above its build
 * (dist/issuer/issuer/routes/, tsconfig.issuer.json), which `npm run start:prod` runs.
 */
const PACKAGE_ROOT = new URL(import.meta.url.endsWith('.ts') ? '../../' : '../../../../', import.meta.url);

/** Where `buildConsole()` writes by default. */
export const CONSOLE_DIST_DIR = fileURLToPath(new URL('dist/console/', PACKAGE_ROOT));

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Console not built</title>
<h1>The operator console has not been built</h1>
<p>Run <code>npm run build:console</code> (it writes <code>dist/console/</code>), then reload this page.</p></html>`;

function headers(contentType: string, cache: string): Record<string, string> {
  return {
    'content-type': contentType,
    'content-security-policy': CONSOLE_CSP,
    'cache-control': cache,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}

export interface ConsoleRouteOptions {
  /** The built console (default CONSOLE_DIST_DIR). Read on each request, so a rebuild needs no restart. */
  distDir?: string;
}

export function consoleRoutes(_ctx: IssuerContext, options: ConsoleRouteOptions = {}) {
  const dir = options.distDir ?? CONSOLE_DIST_DIR;
  const app = new Hono<IssuerEnv>();

  const page = () => {
    const index = join(dir, 'index.html');
    if (!existsSync(index))
      return new Response(NOT_BUILT, {
        status: 503,
        headers: { ...headers('text/html; charset=utf-8', 'no-store'), 'retry-after': '60' },
      });
    return new Response(readFileSync(index), { status: 200, headers: headers('text/html; charset=utf-8', 'no-store') });
  };
  app.get('/console', page);
  app.get('/console/', page);
  // The issuer's root is where a person opening the README's URL lands: the console, not a 404.
  app.get('/', (c) => c.redirect('/console', 302));

  app.get('/console/assets/:name', (c) => {
    const name = c.req.param('name');
    const assets = join(dir, 'assets');
    const known = existsSync(assets) ? readdirSync(assets) : [];
    const extension = name.slice(name.lastIndexOf('.'));
    const contentType = CONTENT_TYPES[extension];
    if (!known.includes(name) || contentType === undefined) {
      return new Response('not found', { status: 404, headers: headers('text/plain; charset=utf-8', 'no-store') });
    }
    return new Response(readFileSync(join(assets, name)), {
      status: 200,
      headers: headers(contentType, 'public, max-age=31536000, immutable'),
    });
  });
  return app;
}
