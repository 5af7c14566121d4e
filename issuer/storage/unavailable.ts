/**
 * The database could not be reached or ended the connection a request was using: the server is
 * down or restarting, a backend was terminated, every connection slot is taken. The storage
 * layer throws this instead of the driver's error, so that the HTTP edge (http/errors.ts)
 * answers 503 DATABASE_UNAVAILABLE with Retry-After — the request failed, nothing was decided —
 * and services that turn failures into verdicts can tell "the database did not answer" from a
 * refusal (docs/operations.md §When PostgreSQL goes away).
 *
 * `driverCode` says what failed in the driver's own terms — a SQLSTATE (57P01 admin shutdown,
 * 53300 too many connections, 08006 connection failure), a socket error (ECONNREFUSED), or
 * CONNECTION_LOST / CONNECT_TIMEOUT where node-postgres gives none: a fixed token, safe to log.
 */
import { MandateError } from '../../wallet/crypto/errors.ts';

export class DatabaseUnavailableError extends MandateError<'DATABASE_UNAVAILABLE'> {
  override name = 'DatabaseUnavailableError';
  readonly driverCode: string;

  constructor(driverCode: string, options?: { cause?: unknown }) {
    super('DATABASE_UNAVAILABLE', `the database is unavailable (${driverCode})`, options);
    this.driverCode = driverCode;
  }
}

/** The DatabaseUnavailableError that `error` is or was caused by (a few `cause` links deep), if any. */
export function databaseUnavailable(error: unknown): DatabaseUnavailableError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof DatabaseUnavailableError) return current;
    current = current.cause;
  }
  return undefined;
}

/** Throws the DatabaseUnavailableError behind `error`, if any: for catches that turn failures into verdicts. */
export function rethrowIfUnavailable(error: unknown): void {
  const unavailable = databaseUnavailable(error);
  if (unavailable) throw unavailable;
}
