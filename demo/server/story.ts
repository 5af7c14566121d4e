/** What the demo's story is about: one service, two scopes, and its MCP server's tools. */

/** The service name presentations to the demo API are bound to (their proof domain). */
export const DEMO_TARGET = 'files.demo.localhost';
/** What the operator allows the agent, and what the provider asks the user to approve. */
export const DEMO_SCOPES = Object.freeze(['files:read', 'files:write']);
/** Where the provider's MCP server answers on the page origin; its RFC 8707 resource is `${origin}${MCP_PATH}`. */
export const MCP_PATH = '/mcp';
/** The MCP server's tools and the scope each needs: mcpAuth's tool table (docs/mcp.md). */
export const MCP_TOOLS = Object.freeze({
  list_files: ['files:read'],
  read_file: ['files:read'],
  write_file: ['files:write'],
});

/** The MCP resource of the page origin `origin` (e.g. http://127.0.0.1:5173/mcp). */
export function mcpResourceOf(origin: string): string {
  return `${origin}${MCP_PATH}`;
}
