// Readiness distinct from liveness, on an issuer in this process (and so on either storage
// adapter): GET /v1/ready answers 503 NOT_READY when the database does not, SHUTTING_DOWN while
// draining. The issuer as a process of its own (signals, logs, workers) is in process/runtime.test.ts.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkReadiness } from '../../issuer/services/readiness.ts';
import { startTestIssuer, type TestIssuer } from '../support/issuer.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function issuer(): Promise<TestIssuer> {
  const started = await startTestIssuer();
  cleanups.push(() => started.dispose());
  return started;
}

describe('GET /v1/ready', () => {
  it('answers 200 with each dependency checked, and is published in the OpenAPI document', async () => {
    const running = await issuer();
    const ready = await running.call('/v1/ready');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ ok: true, checks: { database: 'ok' } });
    const openapi = await running.call('/v1/openapi.json');
    const path = openapi.json.paths['/v1/ready'] as { get: { responses: Record<string, unknown> } };
    // 200 and 503 (NOT_READY, SHUTTING_DOWN); the route table also documents what every request can meet (429).
    expect(Object.keys(path.get.responses)).toEqual(expect.arrayContaining(['200', '503', '429']));
  });

  it('answers 503 NOT_READY naming the database when it does not answer, while liveness still answers 200', async () => {
    const running = await issuer();
    await running.running.ctx.close(); // the database closed under the running server
    const ready = await running.call('/v1/ready');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('1');
    expect(ready.json.error.code).toBe('NOT_READY');
    expect(ready.json.error.details).toEqual({ checks: { database: 'failed' } });
    expect((await running.call('/v1/health')).status).toBe(200);
  });

  it('reports a dependency that does not answer in time as timeout', async () => {
    const hanging = { name: 'database', probe: () => new Promise<void>(() => undefined) };
    const ok = { name: 'cache', probe: () => Promise.resolve() };
    expect(await checkReadiness([hanging, ok], 20)).toEqual({
      ready: false,
      checks: { database: 'timeout', cache: 'ok' },
      failed: ['database'],
    });
  });

  it('answers 503 SHUTTING_DOWN to a request that arrives while the process drains', async () => {
    const running = await issuer();
    const { port } = new URL(running.url);
    // A request line already on its way when the shutdown starts: the connection is busy, not idle.
    const socket = connect(Number(port), '127.0.0.1');
    cleanups.push(() => void socket.destroy());
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /v1/ready HTTP/1.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closed = running.running.close();
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('Host: 127.0.0.1\r\n\r\n');
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"code":"SHUTTING_DOWN"');
    expect(await closed).toEqual({ drained: true });
  });
});
