/**
 * Narrows `tools/list` answers to the tools the caller may call (`filterToolsList: true`), in a
 * JSON answer and in an SSE stream's `data:` events (MCP §Streamable HTTP: the server answers a
 * POST with either). Only answers to the request's own `tools/list` ids are touched; anything
 * unreadable passes unchanged (the filter hides tools, it does not guard them: the tool table does).
 */
export type ToolPredicate = (tool: string) => boolean;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function filterMessage(message: unknown, ids: readonly (string | number)[], may: ToolPredicate): unknown {
  if (!isRecord(message) || !isRecord(message.result) || !Array.isArray(message.result.tools)) return message;
  if (!ids.includes(message.id as string | number)) return message;
  const tools = message.result.tools.filter(
    (tool) => isRecord(tool) && typeof tool.name === 'string' && may(tool.name),
  );
  return { ...message, result: { ...message.result, tools } };
}

/** A JSON-RPC answer (one message or a batch) with its tools/list results narrowed. */
export function filterJsonRpc(text: string, ids: readonly (string | number)[], may: ToolPredicate): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  const filtered = Array.isArray(value) ? value.map((m) => filterMessage(m, ids, may)) : filterMessage(value, ids, may);
  return JSON.stringify(filtered);
}

/** One SSE event (lines without the blank separator) with its `data:` narrowed (HTML §9.2.6). */
function filterEvent(event: string, ids: readonly (string | number)[], may: ToolPredicate): string {
  const lines = event.split(/\r?\n/);
  const data = lines
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
  if (data.length === 0) return event;
  const filtered = filterJsonRpc(data.join('\n'), ids, may);
  return [...lines.filter((line) => !line.startsWith('data:')), `data: ${filtered}`].join('\n');
}

/** Rewrites SSE text pushed in pieces, event by event (an event ends at a blank line). */
export interface SseRewriter {
  push(text: string): string;
  flush(): string;
}

export function createSseRewriter(ids: readonly (string | number)[], may: ToolPredicate): SseRewriter {
  let pending = '';
  return {
    push(text) {
      pending += text;
      let out = '';
      let end: RegExpExecArray | null;
      while ((end = /\r?\n\r?\n/.exec(pending)) !== null) {
        out += `${filterEvent(pending.slice(0, end.index), ids, may)}\n\n`;
        pending = pending.slice(end.index + end[0].length);
      }
      return out;
    },
    flush() {
      const rest = pending === '' ? '' : filterEvent(pending, ids, may);
      pending = '';
      return rest;
    },
  };
}

/** A TransformStream over SSE text that rewrites each complete event. */
export function sseFilter(ids: readonly (string | number)[], may: ToolPredicate): TransformStream<string, string> {
  const rewriter = createSseRewriter(ids, may);
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      const out = rewriter.push(chunk);
      if (out !== '') controller.enqueue(out);
    },
    flush(controller) {
      const out = rewriter.flush();
      if (out !== '') controller.enqueue(out);
    },
  });
}

/** `response` with its tools/list answers narrowed (JSON or SSE); others unchanged. */
export async function filterToolsListResponse(
  response: Response,
  ids: readonly (string | number)[],
  may: ToolPredicate,
): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  if (ids.length === 0 || response.body === null) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const init = { status: response.status, statusText: response.statusText, headers };
  if (type.startsWith('application/json')) return new Response(filterJsonRpc(await response.text(), ids, may), init);
  if (!type.startsWith('text/event-stream')) return response;
  const body = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(sseFilter(ids, may))
    .pipeThrough(new TextEncoderStream());
  return new Response(body, init);
}
