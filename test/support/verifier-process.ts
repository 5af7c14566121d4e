// One verifier process for the multi-process replay tests: a Hono app behind agentAuth whose
// replay cache is Redis (createRedisReplayCache), listening on a free port of 127.0.0.1, which it
// prints as `listening <port>`. Configured by the environment: TRUSTED_ISSUER (a did:key),
// TARGET, REDIS_URL, REDIS_PREFIX. Run: node --import tsx test/support/verifier-process.ts (the tests run its bundle, ./bundles.ts)
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { agentAuth, createRedisReplayCache, type AgentAuthEnv } from '../../verifier-worker/index.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

// Commands wait at most the cache's timeout: while Redis is away they queue (ioredis' offline
// queue) and the cache refuses after `timeoutMs`.
const client = new Redis(required('REDIS_URL'), { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
client.on('error', () => undefined); // reconnects by itself; each refusal says why
const replayCache = createRedisReplayCache({ client, prefix: required('REDIS_PREFIX'), timeoutMs: 500 });
const app = new Hono<AgentAuthEnv>();
app.use(
  '/files/*',
  agentAuth({
    trustedIssuers: [required('TRUSTED_ISSUER')],
    target: required('TARGET'),
    challenge: 'none',
    replayCache,
    requiredScopes: [{ method: 'GET', path: '/files/*', scopes: ['files:read'] }],
  }),
);
app.get('/files/:id', (c) => c.json({ pid: process.pid, agent: c.var.agent.agentDid }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  client.disconnect();
});
