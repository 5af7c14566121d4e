/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint: where a client learns
 * which authorization server issues tokens for this resource (MCP §Authorization, "Authorization
 * Server Discovery"). Served at the path-suffixed well-known URI (RFC 9728 §3.1: the well-known
 * segment goes between the host and the resource's path) and at the bare one, and named in every
 * 401's `resource_metadata` (RFC 9728 §5.1).
 */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** RFC 9728 §2 metadata, the members this server publishes. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
  dpop_signing_alg_values_supported: string[];
  dpop_bound_access_tokens_required: boolean;
  resource_name?: string;
  resource_documentation?: string;
}

/** The path-suffixed metadata URL of `resource` (RFC 9728 §3.1). */
export function metadataUrl(resource: URL): string {
  const path = resource.pathname === '/' ? '' : resource.pathname;
  return `${resource.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

/** The paths the metadata is served at: the path-suffixed one, and the bare one. */
export function metadataPaths(resource: URL): string[] {
  const suffixed = new URL(metadataUrl(resource)).pathname;
  return suffixed === PROTECTED_RESOURCE_WELL_KNOWN ? [suffixed] : [suffixed, PROTECTED_RESOURCE_WELL_KNOWN];
}

/**
 * The metadata answer for a request to one of `paths`, or undefined for any other request: 200
 * JSON to GET (and HEAD), 405 otherwise. Readable cross-origin (browser-based MCP clients).
 */
export function metadataResponse(
  request: Request,
  paths: readonly string[],
  document: ProtectedResourceMetadata,
): Response | undefined {
  if (!paths.includes(new URL(request.url).pathname)) return undefined;
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD')
    return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
  return new Response(method === 'HEAD' ? null : JSON.stringify(document), {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
    },
  });
}
