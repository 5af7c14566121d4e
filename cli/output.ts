/**
 * How the CLI speaks: tables and key/value blocks for people, one JSON document for scripts
 * (`--json`). Results go to stdout, errors to stderr, so `mandate … --json | jq` never parses
 * an error message. Nothing here knows about the admin key: it is never handed to output.
 * Every byte in or out goes through an `Io` (the process's streams in bin/mandate.mjs, buffers
 * when run() is driven in-process, as test/cli/operator.test.ts does): no command touches
 * process.stdin, process.stdout or process.stderr itself.
 */
import type { JsonValue } from '../wallet/crypto/json-value.ts';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Standard input, for a command given "-" as its file (`verify -`); asked for only then. */
  stdin(): AsyncIterable<Uint8Array | string>;
}

export const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdin: () => process.stdin,
};

/**
 * Characters a terminal acts on instead of showing: C0 controls but tab and line feed, DEL, C1
 * controls, and the Unicode bidirectional formatting characters (Trojan Source, CVE-2021-42574).
 * An audit reason, a consent's agent or an issuer's error message is chosen by whoever sent it:
 * printed raw, ESC sequences could clear the screen, retitle the window or paint a fake verdict.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const UNSAFE_FOR_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every character a terminal would act on shown as a `\u001b`-style escape. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_FOR_TERMINAL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export type Cell = string | number | boolean | null | undefined;

/** A JSON value as `String()` shows it (arrays joined with commas), absent and null as ''. */
export function valueText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(valueText).join(',');
  return typeof value === 'object' ? '[object Object]' : String(value);
}

function cellText(value: Cell | readonly string[]): string {
  if (value === undefined || value === null || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.join(',');
  return String(value);
}

/** Column-aligned rows under an upper-case header; "-" for empty cells; "(none)" for no rows. */
export function table(headers: readonly string[], rows: readonly (readonly (Cell | readonly string[])[])[]): string {
  if (rows.length === 0) return '(none)\n';
  const text = rows.map((row) => headers.map((_, i) => cellText(row[i])));
  const widths = headers.map((header, i) => Math.max(header.length, ...text.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd() + '\n';
  return line(headers.map((h) => h.toUpperCase())) + text.map(line).join('');
}

/** `label  value` lines, labels aligned; undefined values are left out. */
export function keyValues(pairs: readonly (readonly [string, Cell | readonly string[]])[]): string {
  const shown = pairs.filter(([, value]) => value !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${label.padEnd(width)}  ${cellText(value)}\n`).join('');
}

/** The line under a page of results that says how to ask for the next one. */
export function nextPageHint(nextCursor: string | undefined): string {
  return nextCursor ? `more: --cursor ${nextCursor}\n` : '';
}

export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
