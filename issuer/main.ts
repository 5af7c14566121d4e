/**
 * `npm start` (from the sources, with tsx) and `npm run start:prod` (the build, plain Node): the
 * issuer on HOST:PORT (default 127.0.0.1:8787) with no external infrastructure. A configuration
 * error stops start-up with exit code 1 and one line on stderr per problem, every problem at once.
 *
 * Logs are JSON lines on stdout (log.ts): start, shutdown, crashes and every request.
 * Outside production a human banner goes to stderr as well. SERVICE_WORKERS > 1 makes this
 * process the primary of a cluster (cluster.ts) and each forked copy a worker.
 * SIGTERM / SIGINT: graceful shutdown (server.ts), exit 0 once every in-flight request finished,
 * 1 when SERVICE_SHUTDOWN_TIMEOUT_SECONDS passed first.
 */
import cluster from 'node:cluster';
import { announceReady, runPrimary, type WorkerReady } from './cluster.ts';
import { ConfigError, loadConfig, type IssuerConfig } from './config/index.ts';
import { createLogger, type Logger } from './log.ts';
import { startIssuer, type RunningIssuer } from './server.ts';

function loadConfigOrExit(): IssuerConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      // One write, one line per problem: each names its variable and reads alone in a log.
      process.stderr.write(
        error.problems.map((problem) => `mandate-issuer: configuration error: ${problem}\n`).join(''),
      );
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Exits once stdout has taken every log line: writes to a pipe are asynchronous, and
 * process.exit() drops what is still queued (the `stopped` line, a crash's error line).
 */
function exitAfterFlush(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}

/** The human banner: development only (production reads the JSON `issuer started` line). */
function writeBanner(config: IssuerConfig, ready: Omit<WorkerReady, 'type'>): void {
  if (config.nodeEnv === 'production' || config.logLevel === 'silent') return;
  // One write, so a reader of the stream never sees half a banner.
  const secrets = config.secretsFile ? `  development secrets (admin API key, keys): ${config.secretsFile}\n` : '';
  const workers = config.workers > 1 ? `  workers: ${config.workers}\n` : '';
  process.stderr.write(
    `Mandate issuer listening on ${ready.url}\n  operator console: ${ready.url}/console\n  API reference: ${ready.url}/docs\n  issuer DID: ${ready.issuerDid}\n${workers}${secrets}`,
  );
}

/** A crash is one JSON error line (with the stack: it is our bug, not a client's input), then exit 1. */
function logCrashes(log: Logger): void {
  const crash = (kind: string) => (error: unknown) => {
    log.error(kind, {
      error: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? (error.stack ?? null) : null,
    });
    exitAfterFlush(1);
  };
  process.on('uncaughtException', crash('uncaught exception'));
  process.on('unhandledRejection', crash('unhandled rejection'));
}

/** SIGTERM / SIGINT: drain and exit; a repeated signal (a process group's, then a primary's) is ignored. */
function exitOnSignals(issuer: RunningIssuer, log: Logger, timeoutMs: number): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // close() stops accepting before it returns: whoever reads the next line may rely on that.
    const closed = issuer.close();
    log.info('shutting down', { signal, timeoutMs });
    // Should closing the storage itself hang, the process still ends.
    setTimeout(() => process.exit(1), timeoutMs + 5000).unref();
    closed.then(
      ({ drained }) => {
        if (drained) log.info('stopped', { signal });
        else log.error('stopped: in-flight requests cut at the shutdown deadline', { signal, timeoutMs });
        exitAfterFlush(drained ? 0 : 1);
      },
      (error: unknown) => {
        log.error('shutdown failed', { signal, error: error instanceof Error ? error.name : typeof error });
        exitAfterFlush(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** Where state lives, for the start-up line: the SQLite path, or the PostgreSQL host and database (never its credentials). */
function databaseForLog(config: IssuerConfig): string {
  if (config.storageAdapter !== 'postgres' || config.databaseUrl === undefined) return config.sqlitePath;
  const url = new URL(config.databaseUrl);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** One serving process: the whole issuer (SERVICE_WORKERS=1) or one worker of a cluster. */
async function serve(config: IssuerConfig): Promise<void> {
  const worker = cluster.isWorker ? cluster.worker : undefined;
  const log = createLogger({
    level: config.logLevel,
    ...(worker ? { fields: { worker: worker.id, pid: process.pid } } : {}),
  });
  logCrashes(log);
  // A cluster's primary has told them already.
  if (!worker) for (const warning of config.warnings) log.warn(warning);
  const issuer = await startIssuer({ config, log });
  const { ctx } = issuer;
  // Before the line that says it started: whoever reads that line may signal at once.
  exitOnSignals(issuer, log, config.shutdownTimeoutMs);
  log.info(worker ? 'worker started' : 'issuer started', {
    url: issuer.url,
    apiBaseUrl: ctx.config.apiBaseUrl,
    issuerDid: ctx.issuer.did,
    database: databaseForLog(ctx.config),
    devSecretsFile: ctx.config.secretsFile ?? null,
    nodeEnv: ctx.config.nodeEnv,
  });
  const ready = { url: issuer.url, issuerDid: ctx.issuer.did };
  if (worker) announceReady(ready);
  else writeBanner(ctx.config, ready);
}

async function primary(config: IssuerConfig): Promise<void> {
  const log = createLogger({ level: config.logLevel, fields: { role: 'primary', pid: process.pid } });
  logCrashes(log);
  for (const warning of config.warnings) log.warn(warning);
  const code = await runPrimary({
    config,
    log,
    onFirstReady: (ready) => {
      log.info('issuer started', { url: ready.url, issuerDid: ready.issuerDid, workers: config.workers });
      writeBanner(config, ready);
    },
  });
  exitAfterFlush(code);
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.workers > 1 && cluster.isPrimary) await primary(config);
  else await serve(config);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  // The log pipeline's line, then the human's.
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'failed to start', message })}\n`,
  );
  process.stderr.write(`mandate-issuer: failed to start: ${message}\n`);
  exitAfterFlush(1);
});
