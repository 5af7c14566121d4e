// Runs once in Node before both projects. Servers that browser tests need (a did:web host,
// a ledger mirror, the issuer) are started here and their URLs handed to tests via `inject`;
// the programs tests run as child processes are bundled (./bundles.ts).
import type { TestProject } from 'vitest/node';
import { buildBundles } from './bundles.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const teardowns: Array<() => Promise<void>> = [];
  await buildBundles();
  const { startFixtureServers } = await import('./fixture-servers.ts');
  const servers = await startFixtureServers();
  teardowns.push(servers.close);
  project.provide('fixtureBaseUrl', servers.baseUrl);
  return async () => {
    for (const teardown of teardowns.reverse()) await teardown();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    fixtureBaseUrl: string;
  }
}
