/**
 * `filterToolsList` for Node responses: the MCP SDK's Node transport writes its answer to the
 * ServerResponse itself, so the narrowing (list-filter.ts) happens on the way out — the
 * Content-Length header is dropped (the body changes length), a JSON answer is buffered and
 * rewritten at `end`, an SSE stream is rewritten event by event as it is written.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { createSseRewriter, filterJsonRpc, type ToolPredicate } from './list-filter.ts';

type Mode = 'json' | 'sse' | 'pass';

function modeOf(res: ServerResponse, headers: unknown): Mode {
  let type = res.getHeader('content-type');
  if (typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
    for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders))
      if (name.toLowerCase() === 'content-type') type = value;
  }
  const text = String(type ?? '').toLowerCase();
  return text.startsWith('application/json') ? 'json' : text.startsWith('text/event-stream') ? 'sse' : 'pass';
}

function withoutLength(headers: unknown): unknown {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
}

const textOf = (chunk: unknown, decoder: TextDecoder): string =>
  typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? decoder.decode(chunk, { stream: true }) : '';

/** Narrows the `tools/list` answers `res` is about to carry (JSON or SSE). */
export function filterNodeToolsList(res: ServerResponse, ids: readonly (string | number)[], may: ToolPredicate): void {
  const original = { writeHead: res.writeHead.bind(res), write: res.write.bind(res), end: res.end.bind(res) };
  const decoder = new TextDecoder();
  const sse = createSseRewriter(ids, may);
  let mode: Mode | undefined;
  let json = '';
  const decide = (headers?: unknown): Mode => {
    mode ??= modeOf(res, headers);
    if (mode !== 'pass' && !res.headersSent) res.removeHeader('content-length');
    return mode;
  };
  res.writeHead = (status: number, ...rest: unknown[]) => {
    const headers = rest.find((arg) => typeof arg === 'object');
    const kept = decide(headers) === 'pass' ? rest : rest.map((arg) => (arg === headers ? withoutLength(arg) : arg));
    return (original.writeHead as (...args: unknown[]) => ServerResponse)(status, ...kept);
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    const current = decide();
    if (current === 'pass') return (original.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    if (current === 'json') return ((json += textOf(chunk, decoder)), true);
    return original.write(sse.push(textOf(chunk, decoder)));
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const current = decide();
    const last = typeof chunk === 'function' || chunk === undefined ? '' : textOf(chunk, decoder);
    if (current === 'pass') return (original.end as (...args: unknown[]) => ServerResponse)(chunk, ...rest);
    if (current === 'json') return original.end(filterJsonRpc(json + last + decoder.decode(), ids, may));
    return original.end(sse.push(last + decoder.decode()) + sse.flush());
  }) as ServerResponse['end'];
}
