/**
 * Per-tool authority: a table maps each MCP tool (the `params.name` of a JSON-RPC `tools/call`,
 * MCP §Tools) to the scopes it needs. A call to a tool the table does not name is refused
 * (TOOL_NOT_LISTED: fail closed, so a tool added to the server without a rule is unreachable);
 * every other method (initialize, tools/list, ping, notifications, responses) needs only a
 * valid credential. A batch (a JSON array, JSON-RPC 2.0 §6) needs what all its calls need.
 */
import { parseScopes, uncovered } from '../../wallet/vc/scopes.ts';
import { invalidMcpOptions, McpAuthError } from './errors.ts';

/** Tool name → the scopes a caller must hold (all of them; a held scope covers its narrower ones). */
export type ToolScopes = Readonly<Record<string, readonly string[]>>;

export type ToolTable = ReadonlyMap<string, readonly string[]>;

/** Most messages in one batch. */
export const MAX_BATCH = 64;

export function compileToolTable(tools: unknown): ToolTable {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    invalidMcpOptions('tools must be an object mapping each tool name to the scopes it needs');
  const table = new Map<string, readonly string[]>();
  for (const [name, scopes] of Object.entries(tools)) {
    try {
      table.set(name, parseScopes(scopes));
    } catch (error) {
      invalidMcpOptions(`tools[${JSON.stringify(name)}]: ${error instanceof Error ? error.message : 'invalid scopes'}`);
    }
  }
  return table;
}

/** Every scope the table names, deduplicated: the metadata's `scopes_supported` by default. */
export function tableScopes(table: ToolTable): string[] {
  return [...new Set([...table.values()].flat())].sort();
}

export interface ToolDemand {
  /** Tools the body calls. */
  tools: string[];
  /** Scopes all of them need together. */
  scopes: string[];
  /** Ids of the body's `tools/list` requests (whose answers a filter may narrow). */
  listIds: (string | number)[];
}

function malformed(message: string): never {
  throw new McpAuthError('BODY_MALFORMED', message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readMessage(message: unknown, table: ToolTable, demand: ToolDemand): void {
  if (!isRecord(message) || message.jsonrpc !== '2.0') malformed('each message must be a JSON-RPC 2.0 object');
  if (message.method === 'tools/list' && (typeof message.id === 'string' || typeof message.id === 'number'))
    demand.listIds.push(message.id);
  if (message.method !== 'tools/call') return;
  const name = isRecord(message.params) ? message.params.name : undefined;
  if (typeof name !== 'string') malformed('tools/call needs params.name, the tool to call');
  const scopes = table.get(name);
  if (scopes === undefined)
    throw new McpAuthError(
      'TOOL_NOT_LISTED',
      `the tool ${JSON.stringify(name.slice(0, 64))} is not open to any caller`,
    );
  demand.tools.push(name);
  for (const scope of scopes) if (!demand.scopes.includes(scope)) demand.scopes.push(scope);
}

/** What a parsed JSON-RPC body asks of the caller; throws BODY_MALFORMED or TOOL_NOT_LISTED. */
export function toolDemand(body: unknown, table: ToolTable): ToolDemand {
  const demand: ToolDemand = { tools: [], scopes: [], listIds: [] };
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > MAX_BATCH)
    malformed(`a batch must hold between 1 and ${MAX_BATCH} messages`);
  for (const message of messages) readMessage(message, table, demand);
  return demand;
}

/** The scopes of `needed` that `held` does not cover: empty when the caller may proceed. */
export function missingScopes(needed: readonly string[], held: readonly string[]): string[] {
  return uncovered(needed, held);
}

/** Whether a caller holding `held` may call `tool`. */
export function mayCall(table: ToolTable, tool: string, held: readonly string[]): boolean {
  const needed = table.get(tool);
  return needed !== undefined && uncovered(needed, held).length === 0;
}
