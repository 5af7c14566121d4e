/**
 * The service-worker verifier guarding `/api/files/*` of this page, and one call through it:
 * a fresh challenge from the worker, a presentation, the answer and the worker's report.
 */
import { encodePresentationHeader } from '../../wallet/vc/transport.ts';
import type { VerifiablePresentation } from '../../wallet/vc/types.ts';
import { registerVerifier } from '../../verifier-worker/sw/register.ts';
import type { VerificationReport } from '../../verifier-worker/sw/report.ts';
import { getJson } from './http.ts';
import type { DemoConfig } from './story.ts';

const CHALLENGE_PATH = '/.well-known/mandate/challenge';

export interface ApiCall {
  challenge: { challenge: string; expiresAt: string };
  vp: VerifiablePresentation;
  status: number;
  body: unknown;
  /** The worker's report of its decision on this call, if it arrived in time. */
  report: VerificationReport | undefined;
}

export interface PageVerifier {
  /** Settles once the worker guards the page (rejects if it cannot). */
  ready: Promise<void>;
  call(
    method: 'GET' | 'POST',
    path: string,
    present: (challenge: string) => Promise<VerifiablePresentation>,
  ): Promise<ApiCall>;
}

function verifierConfig(config: DemoConfig) {
  return {
    target: config.target,
    trustedIssuers: [config.issuerDid],
    trustedGrantIssuers: [config.providerDid],
    routes: [
      { path: '/api/files/*', method: 'GET', scopes: ['files:read'] },
      { path: '/api/files/*', method: 'POST', scopes: ['files:write'] },
    ],
    challenge: 'endpoint' as const,
    // The issuer and the provider are http://127.0.0.1 in this demo.
    allowHttpLoopback: true,
  };
}

/** Registers the worker and shows its state in `status`. */
function register(config: DemoConfig, status: HTMLElement, reports: VerificationReport[]): Promise<void> {
  return registerVerifier({
    scriptUrl: '/verifier-sw.js',
    config: verifierConfig(config),
    onReport: (r) => reports.push(r),
  }).then(
    () => {
      status.textContent = 'Service-worker verifier: guarding /api/files/* of this page';
      status.dataset.state = 'ready';
    },
    (error: unknown) => {
      status.textContent = `Service-worker verifier: not available (${error instanceof Error ? error.message : String(error)})`;
      status.dataset.state = 'failed';
      throw error;
    },
  );
}

async function callThrough(
  reports: readonly VerificationReport[],
  method: 'GET' | 'POST',
  path: string,
  present: (challenge: string) => Promise<VerifiablePresentation>,
): Promise<ApiCall> {
  const challengeResponse = await fetch(CHALLENGE_PATH, { cache: 'no-store' });
  const challenge = (await challengeResponse.json()) as ApiCall['challenge'];
  const vp = await present(challenge.challenge);
  const before = reports.length;
  const response = await fetch(path, {
    method,
    headers: { authorization: encodePresentationHeader(vp) },
    cache: 'no-store',
  });
  const body = await getJson(response);
  // The worker's report arrives on a BroadcastChannel, usually before the response is read.
  for (let i = 0; i < 20 && reports.length === before; i++) await new Promise((r) => setTimeout(r, 50));
  const report = reports.slice(before).find((r) => r.path === path);
  return { challenge, vp, status: response.status, body, report };
}

export function startVerifier(config: DemoConfig, status: HTMLElement): PageVerifier {
  // Reports of the worker's decisions, newest last (never a presentation: report.ts).
  const reports: VerificationReport[] = [];
  const ready = register(config, status, reports);
  return {
    ready,
    async call(method, path, present) {
      await ready;
      return callThrough(reports, method, path, present);
    },
  };
}
