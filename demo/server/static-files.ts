/** The built page, served from its directory under a strict Content-Security-Policy. */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** The page's Content-Security-Policy: its own scripts and styles only, connections to itself and the issuer's public documents. */
export function contentSecurityPolicy(issuerUrl: string): string {
  return `default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' ${issuerUrl}; worker-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** Serves files of `root` only: no directory listing, no path outside it. */
export async function staticFile(root: string, path: string, csp: string): Promise<Response | undefined> {
  const relative = normalize(decodeURIComponent(path === '/' ? '/index.html' : path)).replace(/^([/\\])+/, '');
  const file = join(root, relative);
  if (!file.startsWith(root + sep) || relative.includes('\0')) return undefined;
  const type = CONTENT_TYPES[extname(file)];
  if (type === undefined) return undefined;
  try {
    const body = await readFile(file);
    const headers: Record<string, string> = {
      'content-type': type,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    };
    if (type.startsWith('text/html')) headers['content-security-policy'] = csp;
    return new Response(body, { status: 200, headers });
  } catch {
    return undefined;
  }
}
