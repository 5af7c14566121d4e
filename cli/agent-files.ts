/**
 * The files an agent run from the CLI keeps (docs/cli.md §Agent commands): its key, one record of
 * an encrypted file key store (`--key-file <dir>/<id>.json`: the store is `<dir>`, the key's id
 * `<id>`; wallet/keystore/file.ts), and its credential chain beside it (`<dir>/<id>.credentials`,
 * a JSON array, leaf first; not `.json`, so the store never takes it for a key record).
 */
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { createAgent, type Agent } from '../wallet/agent/index.ts';
import { createFileKeyStore, errorCode } from '../wallet/keystore/file.ts';
import type { KeyStore } from '../wallet/keystore/types.ts';
import { didKeyIdentity, type SigningIdentity } from '../wallet/vc/identity.ts';
import { parseCredential } from '../wallet/vc/parse.ts';
import type { MandateCredential } from '../wallet/vc/types.ts';
import { stringOption, type CommandContext, type OptionSpec } from './command.ts';
import { readPresentation } from './commands/verify.ts';
import { CliError } from './errors.ts';

/** The transport an agent sends through (createAgent's `fetch`). */
export type FetchLike = (input: Request | string, init?: RequestInit) => Promise<Response>;

export const DEFAULT_KEY_FILE = 'agent-key.json';
export const DEFAULT_PASSPHRASE_ENV = 'MANDATE_PASSPHRASE';

/** The options of every command that acts as the agent. */
export const AGENT_FILE_OPTIONS: Readonly<Record<string, OptionSpec>> = Object.freeze({
  'key-file': {
    type: 'string',
    value: 'file',
    description: `the agent's key: <dir>/<id>.json of a file key store (default ${DEFAULT_KEY_FILE})`,
  },
  'passphrase-env': {
    type: 'string',
    value: 'var',
    description: `the environment variable holding the key's passphrase (default ${DEFAULT_PASSPHRASE_ENV})`,
  },
  credentials: {
    type: 'string',
    value: 'file',
    description: "the agent's credential chain, a JSON array leaf first (default: the key file's <id>.credentials)",
  },
});

export interface AgentFiles {
  store: KeyStore;
  keyId: string;
  keyFile: string;
  credentialsFile: string;
  /** Whether a passphrase was found in the environment (new keys are then encrypted). */
  encrypted: boolean;
}

/** Where the key and the chain are, and the store holding the key (nothing is read yet). */
export function agentFiles(ctx: CommandContext): AgentFiles {
  const keyFile = resolve(stringOption(ctx.options, 'key-file') ?? DEFAULT_KEY_FILE);
  if (!keyFile.endsWith('.json') || basename(keyFile) === '.json')
    throw new CliError('ARGUMENT_INVALID', '--key-file must name a <id>.json file of a key store directory');
  const keyId = basename(keyFile).slice(0, -'.json'.length);
  const variable = stringOption(ctx.options, 'passphrase-env') ?? DEFAULT_PASSPHRASE_ENV;
  const passphrase = ctx.env[variable];
  const encrypted = passphrase !== undefined && passphrase !== '';
  const directory = dirname(keyFile);
  return {
    store: createFileKeyStore({ directory, ...(encrypted ? { passphrase } : {}) }),
    keyId,
    keyFile,
    credentialsFile: resolve(stringOption(ctx.options, 'credentials') ?? join(directory, `${keyId}.credentials`)),
    encrypted,
  };
}

/** The passphrase variable's name, for messages (never its value). */
export function passphraseVariable(ctx: CommandContext): string {
  return stringOption(ctx.options, 'passphrase-env') ?? DEFAULT_PASSPHRASE_ENV;
}

/** The key's identity; a key file that does not exist is a usage error naming it. */
export async function agentIdentity(files: AgentFiles): Promise<SigningIdentity> {
  if ((await files.store.get(files.keyId)) === undefined)
    throw new CliError('FILE_UNREADABLE', `no key at ${files.keyFile} (create one with "mandate agents onboard")`);
  return didKeyIdentity(await files.store.signer(files.keyId));
}

/** The chain in the credentials file: a JSON array of credentials, leaf first (one object is read as [it]). */
export async function readCredentials(files: AgentFiles, ctx: CommandContext): Promise<MandateCredential[]> {
  const json = await readPresentation(files.credentialsFile, ctx.io);
  const list = Array.isArray(json) ? json : [json];
  try {
    return list.map((credential) => parseCredential(credential));
  } catch (error) {
    throw new CliError(
      'FILE_INVALID',
      `${files.credentialsFile} holds no credential chain: ${error instanceof Error ? error.message : 'unreadable'}`,
    );
  }
}

/**
 * Writes the chain, private (0600) and never over an existing file: a credential replaced by
 * mistake is one the agent can no longer present.
 */
export async function writeCredentials(path: string, chain: readonly unknown[]): Promise<void> {
  try {
    await writeFile(path, `${JSON.stringify(chain, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    const code = errorCode(error);
    throw new CliError(
      code === 'EEXIST' ? 'ARGUMENT_INVALID' : 'FILE_UNREADABLE',
      code === 'EEXIST'
        ? `${path} already exists: move it away or name another --credentials file`
        : `cannot write ${path} (${code ?? 'error'})`,
    );
  }
}

/** The key's identity and the chain of the credentials file, checked to belong together. */
export async function agentChain(
  ctx: CommandContext,
): Promise<{ identity: SigningIdentity; credentials: MandateCredential[] }> {
  const files = agentFiles(ctx);
  const identity = await agentIdentity(files);
  const credentials = await readCredentials(files, ctx);
  if (credentials[0]?.credentialSubject.id !== identity.did)
    throw new CliError(
      'FILE_INVALID',
      `the leaf credential in ${files.credentialsFile} is not of the key in ${files.keyFile} (${identity.did})`,
    );
  return { identity, credentials };
}

/**
 * The agent of the key file and the credentials file; `issuer` is the authorization server it
 * trusts (docs/agents.md `createAgent`), `fetch` its transport.
 */
export async function loadAgent(
  ctx: CommandContext,
  options: { issuer?: string | undefined; allowHttpLoopback: boolean; fetch?: FetchLike },
): Promise<Agent> {
  const { identity, credentials } = await agentChain(ctx);
  return createAgent({
    identity,
    credentials,
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    urlPolicy: { allowHttpLoopback: options.allowHttpLoopback },
  });
}
