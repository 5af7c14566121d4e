/**
 * The PostgreSQL connection pool of the issuer (node-postgres). Every store reads and writes
 * through a `Sql` — the pool itself, or one pooled client inside a transaction — so a store
 * object does not know which of the two it runs on.
 *
 * Types: the interface speaks epoch milliseconds as numbers, and node-postgres returns int8
 * (BIGINT: times, audit seq, counts) as strings, since an int8 may not fit a double. This pool
 * parses int8 to a number and throws on one beyond Number.MAX_SAFE_INTEGER rather than round
 * it. The parser is the pool's own (`types`), not node-postgres's global table, so another pool
 * in the process is left as it is.
 *
 * A lost connection fails the requests using it, never the process: pg-pool listens for
 * `error` on idle clients only, and a client emits `error` when its connection ends — also
 * while it is checked out (a terminated backend, a server stopped at once, the server's own
 * idle_in_transaction_session_timeout), where an event without a listener is an uncaught
 * exception. `checkout` listens for as long as the client is out.
 */
import pg from 'pg';

/** What a store needs of a connection: the pool, or a client holding an open transaction. */
export interface Sql {
  query<R extends pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

/** A connection that also takes a named statement (pg.Pool and pg.PoolClient). */
export interface PreparingSql extends Sql {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export interface PoolOptions {
  /** `postgres://user:password@host:port/database` (libpq URL; `?options=-c search_path=…` selects a schema). */
  url: string;
  /** Most connections open at once (SERVICE_DATABASE_POOL_SIZE). */
  size: number;
  /** Told about an idle connection that failed (the server restarted, the network dropped it). */
  onIdleError?: (error: Error) => void;
}

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value beyond 2^53: ${text.slice(0, 24)}`);
  return value;
}

/** int8 as a number (see above); every other type as node-postgres parses it. */
function poolTypes(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, 'text', parseInt8);
  return types;
}

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.size,
    types: poolTypes(),
    // A connection that cannot be made in this time fails the request rather than hanging it.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Named in pg_stat_activity; a transaction left idle (a bug awaiting something else while it
    // holds the writer lock) is ended by the server instead of stalling every other writer.
    application_name: 'mandate-issuer',
    idle_in_transaction_session_timeout: 60_000,
  });
  // Without a listener an idle client's error (a server restart) would crash the process; the
  // pool drops that client and opens another on the next query.
  pool.on('error', (error) => options.onIdleError?.(error));
  return pool;
}

/** A client out of the pool (see `checkout`). */
export interface CheckedOut {
  readonly client: pg.PoolClient;
  /** Back to the pool; destroyed instead when `broken` is given or its connection failed meanwhile. */
  release(broken?: Error): void;
}

/**
 * A client from `pool`, listening for its connection's `error` until released: the error then
 * rejects the query under way or the next one (node-postgres makes the client unqueryable), and
 * the client is destroyed on release rather than handed to the next request.
 *
 * The listener is attached inside pg-pool's callback, synchronously: a promise's continuation
 * would run only after the socket chunk that completed the connection was parsed, and a backend
 * terminated right after start-up sends its FATAL in that same chunk, with no listener yet.
 */
export function checkout(pool: pg.Pool): Promise<CheckedOut> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error || client === undefined) {
        reject(error ?? new Error('the pool gave no client'));
        return;
      }
      let lost: Error | undefined;
      const onError = (failure: Error): void => {
        lost ??= failure;
      };
      client.on('error', onError);
      resolve({
        client,
        release(broken) {
          client.off('error', onError);
          client.release(broken ?? lost);
        },
      });
    });
  });
}
