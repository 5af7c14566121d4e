/**
 * Per-tool authority: a table maps each MCP tool (the `params.name` of a JSON-RPC `tools/call`,
 * MCP §Tools) to the scopes it needs. A call to a tool the table does not name is refused
 * (TOOL_NOT_LISTED: fail closed, so a tool added to the server without a rule is unreachable);
 * every other method a client sends in MCP (MCP_CLIENT_METHODS: initialize, tools/list, ping, the
 * client notifications) and responses need only a valid credential. Method names are compared
 * exactly (JSON-RPC 2.0 §4: `method` is a String): "tools/call " is not tools/call, and a method
 * that is neither MCP's nor allowed by the server's `allowMethods` is refused (METHOD_NOT_ALLOWED),
 * so no framework that trims or folds names can run a call the table never judged. A batch (a
 * JSON array, JSON-RPC 2.0 §6) needs what all its calls need.
 */
import { parseScopes, uncovered } from '../../wallet/vc/scopes.ts';
import { invalidMcpOptions, McpAuthError } from './errors.ts';

/** Tool name → the scopes a caller must hold (all of them; a held scope covers its narrower ones). */
export type ToolScopes = Readonly<Record<string, readonly string[]>>;

export type ToolTable = ReadonlyMap<string, readonly string[]>;

/**
 * The requests and notifications an MCP client sends a server (MCP 2025-11-25 schema,
 * ClientRequest and ClientNotification; the SDK's ClientRequestSchema, ClientNotificationSchema).
 */
export const MCP_CLIENT_METHODS: readonly string[] = Object.freeze([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
]);

const DEFAULT_METHODS: ReadonlySet<string> = new Set(MCP_CLIENT_METHODS);

/** The methods a server accepts: MCP's and the exact names in `allowMethods`. */
export function compileMethods(allowMethods: unknown): ReadonlySet<string> {
  if (allowMethods === undefined) return DEFAULT_METHODS;
  if (
    !Array.isArray(allowMethods) ||
    !allowMethods.every((name) => typeof name === 'string' && name.length > 0 && name.length <= 256)
  )
    invalidMcpOptions('allowMethods must be an array of JSON-RPC method names (non-empty strings)');
  return new Set([...MCP_CLIENT_METHODS, ...(allowMethods as string[])]);
}

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

/** JSON-RPC 2.0 §5: a response carries an `id` and `result` or `error`, and no `method`. */
function isResponse(message: Record<string, unknown>): boolean {
  return !('method' in message) && 'id' in message && ('result' in message || 'error' in message);
}

function readMessage(message: unknown, table: ToolTable, methods: ReadonlySet<string>, demand: ToolDemand): void {
  if (!isRecord(message) || message.jsonrpc !== '2.0') malformed('each message must be a JSON-RPC 2.0 object');
  if (isResponse(message)) return;
  if (typeof message.method !== 'string') malformed('a JSON-RPC request or notification needs a string "method"');
  if (!methods.has(message.method))
    throw new McpAuthError(
      'METHOD_NOT_ALLOWED',
      `the method ${JSON.stringify(message.method.slice(0, 64))} is neither an MCP method nor allowed here`,
    );
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

/**
 * What a parsed JSON-RPC body asks of the caller; throws BODY_MALFORMED, METHOD_NOT_ALLOWED or
 * TOOL_NOT_LISTED. `methods`: the methods accepted (default MCP_CLIENT_METHODS).
 */
export function toolDemand(
  body: unknown,
  table: ToolTable,
  methods: ReadonlySet<string> = DEFAULT_METHODS,
): ToolDemand {
  const demand: ToolDemand = { tools: [], scopes: [], listIds: [] };
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || messages.length > MAX_BATCH)
    malformed(`a batch must hold between 1 and ${MAX_BATCH} messages`);
  for (const message of messages) readMessage(message, table, methods, demand);
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
