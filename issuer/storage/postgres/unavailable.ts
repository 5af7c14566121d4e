/**
 * Which node-postgres failures mean "the database is unavailable" (storage/unavailable.ts), and
 * a connection wrapper that throws DatabaseUnavailableError for them. Everything else — a
 * constraint violation, a bug in a statement — passes through unchanged: it is not the
 * database's absence, and retrying would not help.
 */
import type pg from 'pg';
import { DatabaseUnavailableError } from '../unavailable.ts';
import type { PreparingSql } from './pool.ts';

/**
 * SQLSTATEs of an absent or overwhelmed server (PostgreSQL Appendix A): class 08 connection
 * exception, class 53 insufficient resources (53300 too_many_connections), 57P01 admin_shutdown
 * (pg_terminate_backend, a fast shutdown), 57P02 crash_shutdown (an immediate one), 57P03
 * cannot_connect_now (starting up, shutting down, in recovery), 57P05 idle_session_timeout,
 * 25P03 idle_in_transaction_session_timeout.
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[1235]|25P03)$/;

/** Socket errors of a connection that cannot be made or was cut (Node's `error.code`). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * node-postgres and pg-pool raise these without a code (pg 8: client.js, pg-pool/index.js); their
 * text is the only signal, so it is matched exactly.
 */
const UNCODED: readonly [RegExp, string][] = [
  [/^Connection terminated( unexpectedly)?$/, 'CONNECTION_LOST'],
  [/^Client (has encountered a connection error|was closed) and is not queryable$/, 'CONNECTION_LOST'],
  [/^Connection terminated due to connection timeout$/, 'CONNECT_TIMEOUT'],
  [/^timeout exceeded when trying to connect$/, 'CONNECT_TIMEOUT'],
];

function codeOf(error: Error): string | undefined {
  const code: unknown = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The driver's name for an unavailability `error` is, or undefined when it is some other failure. */
export function unavailableCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  // Connecting to a host name with several addresses: one error per address.
  if (error instanceof AggregateError) return unavailableCode(error.errors[0]);
  const code = codeOf(error);
  if (code !== undefined) return UNAVAILABLE_SQLSTATE.test(code) || SOCKET_CODES.has(code) ? code : undefined;
  return UNCODED.find(([pattern]) => pattern.test(error.message))?.[1];
}

/** `error` as a DatabaseUnavailableError when it is one of the failures above; otherwise itself. */
export function asUnavailable(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error;
  const code = unavailableCode(error);
  return code === undefined ? error : new DatabaseUnavailableError(code, { cause: error });
}

/** Awaits `work`, throwing DatabaseUnavailableError in place of an unavailability failure. */
export async function unlessUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asUnavailable(error);
  }
}

/** `sql` whose queries throw DatabaseUnavailableError when the database is not there to answer. */
export function guarded(sql: PreparingSql): PreparingSql {
  const query = (textOrConfig: string | pg.QueryConfig, values?: readonly unknown[]) =>
    unlessUnavailable(typeof textOrConfig === 'string' ? sql.query(textOrConfig, values) : sql.query(textOrConfig));
  return { query: query as PreparingSql['query'] };
}
