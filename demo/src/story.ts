/**
 * What the eight steps share: the page's configuration, the wallets made so far, and how a step
 * is described (a title, a text, buttons that each run an async action into the step's view).
 */
import { createIndexedDbCredentialStore } from '../../wallet/client/credential-store.ts';
import { createIndexedDbKeyStore } from '../../wallet/keystore/indexeddb.ts';
import type { KeyStore } from '../../wallet/keystore/types.ts';
import type { AgentCredential, DelegatedAgentCredential, DelegationGrantCredential } from '../../wallet/vc/types.ts';
import { Wallet } from '../../wallet/wallet.ts';
import type { Discovery, McpSession } from './mcp-client.ts';
import type { PageVerifier } from './verifier.ts';

/** `/demo/config.json`, as the demo runner (demo/server/page-routes.ts) serves it. */
export interface DemoConfig {
  issuerDid: string;
  issuerUrl: string;
  issuerRelay: string;
  providerDid: string;
  target: string;
  scopes: string[];
  /** The provider's MCP server (its RFC 8707 resource), e.g. http://127.0.0.1:5173/mcp. */
  mcpResource: string;
}

/** What earlier steps produced, for the later ones. */
export interface StoryState {
  token?: string;
  agent?: Wallet;
  user?: Wallet;
  sub?: Wallet;
  agentCredential?: AgentCredential;
  grant?: DelegationGrantCredential;
  subCredential?: DelegatedAgentCredential;
  /** What the sub-agent names in a signed request: its credential, its parent, then the grant. */
  subChain?: readonly unknown[];
  /** The sub-agent's MCP access token and what led to it (step 6). */
  mcp?: { session: McpSession; discovery: Discovery };
}

export interface Story {
  config: DemoConfig;
  state: StoryState;
  keyStore: KeyStore;
  /** The wallet of `role` (agent, user, sub-agent), its key in this browser's IndexedDB. */
  openWallet(role: string): Promise<Wallet>;
  verifier: PageVerifier;
}

export interface StepView {
  section: HTMLElement;
  buttons: HTMLButtonElement[];
  body: HTMLElement;
}

export interface StepButton {
  label: string;
  /** A read-only step, which may be run again (each run replaces what the last one showed). */
  repeatable?: boolean;
  run: (view: StepView) => Promise<void>;
}

export interface StepDefinition {
  title: string;
  text: string;
  buttons: StepButton[];
}

/** A story whose keys and credentials live in IndexedDB databases of this run only. */
export function createStory(config: DemoConfig, verifier: PageVerifier): Story {
  const runId = crypto.randomUUID().slice(0, 8);
  const keyStore = createIndexedDbKeyStore({ name: `mandate-demo-keys-${runId}` });
  const openWallet = (role: string) =>
    Wallet.open({
      keyStore,
      keyId: role,
      credentialStore: createIndexedDbCredentialStore({ name: `mandate-demo-credentials-${role}-${runId}` }),
    });
  return { config, state: {}, keyStore, openWallet, verifier };
}

export function fail(message: string): never {
  throw new Error(message);
}
