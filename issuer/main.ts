/**
 * `npm start`: the issuer on HOST:PORT (default 127.0.0.1:8787) with no external
 * infrastructure. A configuration error stops start-up with one line on stderr and exit code 1.
 */
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './http/logger.ts';
import { startIssuer } from './server.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mandate-issuer: configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const log = createLogger({ level: config.logLevel });
  for (const warning of config.warnings) log.warn(warning);
  const issuer = await startIssuer({ config, log });
  log.info('issuer started', {
    url: issuer.url,
    apiBaseUrl: issuer.ctx.config.apiBaseUrl,
    issuerDid: issuer.ctx.issuer.did,
    database: issuer.ctx.config.sqlitePath,
    devSecretsFile: issuer.ctx.config.secretsFile ?? null,
  });
  if (config.logLevel !== 'silent') {
    // One write, so a reader of the stream never sees half a banner.
    const secrets = issuer.ctx.config.secretsFile
      ? `  development secrets (admin API key, keys): ${issuer.ctx.config.secretsFile}\n`
      : '';
    process.stderr.write(
      `Mandate issuer listening on ${issuer.url}\n  operator console: ${issuer.url}/console\n  API reference: ${issuer.url}/docs\n  issuer DID: ${issuer.ctx.issuer.did}\n${secrets}`,
    );
  }
  const stop = (signal: string) => {
    log.info('shutting down', { signal });
    issuer.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`mandate-issuer: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
