/**
 * Structured logs: one JSON object per line (time, level, msg, fields). Nothing secret is ever
 * passed in — no tokens, keys, Authorization headers or request bodies. The request log (one
 * line per request) is the HTTP edge's: http/logger.ts.
 */
import type { LogLevel } from './config/index.ts';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go (default: stdout). Tests pass an array's push. */
  write?: (line: string) => void;
  now?: () => number;
  /** Fields on every line, e.g. `{worker: 2, pid}` for one process of a cluster (SERVICE_WORKERS). */
  fields?: LogFields;
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold = RANK[options.level];
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const base = options.fields;
  const emit = (level: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: LogFields) => {
    if (RANK[level] < threshold) return;
    write(JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...base, ...fields }));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
