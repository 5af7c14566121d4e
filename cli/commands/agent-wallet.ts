/**
 * `mandate agents onboard|present|delegate`: the CLI as the agent itself, with its key in an
 * encrypted file key store and its chain beside it (cli/agent-files.ts, docs/cli.md §Agent
 * commands). Onboarding is the issuer's enrollment API (docs/api.md §Enrollment) through
 * IssuerClient; presentations and delegations are signed here, by the agent's key, as the wallet
 * signs them (wallet/vc/presentation.ts, wallet/vc/delegation.ts).
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { bytesToHex, randomBytes } from '../../wallet/crypto/bytes.ts';
import { delegate } from '../../wallet/vc/delegation.ts';
import { didKeyIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';
import type { ChainCredential } from '../../wallet/vc/types.ts';
import {
  AGENT_FILE_OPTIONS,
  agentChain,
  agentFiles,
  passphraseVariable,
  writeCredentials,
  type AgentFiles,
} from '../agent-files.ts';
import type { CommandContext, CommandSpec } from '../command.ts';
import { choiceOption, integerOption, listOption, requiredOption, stringOption, usage } from '../command.ts';
import { CliError, EXIT } from '../errors.ts';
import { jsonText, keyValues } from '../output.ts';

/**
 * Checked before the token is spent (step 2 consumes it): a credential that could not be written
 * afterwards is one the agent does not have. The directory is made private, as the key store's.
 */
async function credentialsFileFree(path: string): Promise<void> {
  const taken = await stat(path).then(
    () => true,
    () => false,
  );
  if (taken)
    throw new CliError('ARGUMENT_INVALID', `${path} already exists: move it away or name another --credentials file`);
  const directory = dirname(path);
  // EEXIST when a file is in the way, ENOTDIR when one is further up.
  const made = await mkdir(directory, { recursive: true, mode: 0o700 }).then(
    () => true,
    () => false,
  );
  if (!made) throw new CliError('FILE_UNREADABLE', `cannot create the directory of ${path}`);
}

/** The key to enroll: the key file's if it exists (a retried onboarding), else a new one, encrypted. */
async function enrollingKey(ctx: CommandContext, files: AgentFiles): Promise<{ created: boolean }> {
  if (!files.encrypted)
    throw usage(
      `self custody keeps the key encrypted: set ${passphraseVariable(ctx)} to its passphrase (or name another variable with --passphrase-env)`,
    );
  if ((await files.store.get(files.keyId)) !== undefined) return { created: false };
  await files.store.generate(files.keyId);
  return { created: true };
}

async function onboard(ctx: CommandContext): Promise<typeof EXIT.OK> {
  const token = requiredOption(ctx.options, 'token');
  const custody = choiceOption(ctx.options, 'custody', ['self', 'server'] as const);
  if (custody === undefined) throw usage('--custody is required (self or server)');
  const files = agentFiles(ctx);
  await credentialsFileFree(files.credentialsFile);
  let key: { created: boolean } | undefined;
  let result;
  if (custody === 'self') {
    key = await enrollingKey(ctx, files);
    const identity = didKeyIdentity(await files.store.signer(files.keyId));
    // The credential is written below, to the credentials file: the "wallet" keeps nothing.
    const wallet = { identity, addCredential: () => Promise.resolve(undefined) };
    result = await ctx.client().onboard(token, { custody, wallet, signal: ctx.signal });
  } else {
    result = await ctx.client().onboard(token, { custody, signal: ctx.signal });
  }
  try {
    await writeCredentials(files.credentialsFile, [result.verifiableCredential]);
  } catch (error) {
    // The token is spent: say where the credential is to be found again.
    if (!(error instanceof CliError)) throw error;
    throw new CliError(
      error.code,
      `${error.message}; ${result.agentDid} is enrolled all the same: its credential is ${result.vcId} (mandate vcs show ${result.vcId})`,
    );
  }
  ctx.print(
    keyValues([
      ['agent', result.agentDid],
      ['custody', result.custody],
      ['credential', result.vcId],
      ['key file', key === undefined ? undefined : `${files.keyFile} (${key.created ? 'created' : 'existing key'})`],
      ['credentials', files.credentialsFile],
    ]),
    {
      ...result,
      ...(key === undefined ? {} : { keyFile: files.keyFile, keyCreated: key.created }),
      credentialsFile: files.credentialsFile,
    },
  );
  return EXIT.OK;
}

async function present(ctx: CommandContext): Promise<typeof EXIT.OK> {
  const domain = requiredOption(ctx.options, 'target');
  // Without a verifier's nonce the proof still needs one (VC Data Integrity §2.1 `challenge`).
  const challenge = stringOption(ctx.options, 'challenge') ?? bytesToHex(randomBytes(16));
  const { identity, credentials } = await agentChain(ctx);
  const presentation = await signPresentation({ holder: identity, credentials, challenge, domain });
  ctx.print(jsonText(presentation), presentation);
  return EXIT.OK;
}

const DID = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/;

async function delegateTo(ctx: CommandContext): Promise<typeof EXIT.OK> {
  const to = requiredOption(ctx.options, 'to');
  if (!DID.test(to)) throw new CliError('ARGUMENT_INVALID', '--to must be a DID (did:method:id)');
  const scopes = listOption(ctx.options, 'scopes');
  if (scopes.length === 0) throw usage('--scopes is required');
  const depth = integerOption(ctx.options, 'depth', 0, 16);
  const domains = listOption(ctx.options, 'domains');
  const { identity, credentials } = await agentChain(ctx);
  const parent = credentials[0] as ChainCredential;
  const child = await delegate(parent, {
    delegator: identity,
    delegateeDid: to,
    scopes,
    ...(depth === undefined ? {} : { delegationDepth: depth }),
    ...(domains.length === 0 ? {} : { domains }),
  });
  // The delegatee's credentials file: its credential, then the delegator's chain.
  const chain = [child, ...credentials];
  ctx.print(jsonText(chain), chain);
  return EXIT.OK;
}

export const agentWalletCommands: readonly CommandSpec[] = [
  {
    path: ['agents', 'onboard'],
    summary: 'Enroll this agent with an enrollment token; writes its credential beside its key',
    needs: 'issuer',
    options: {
      token: { type: 'string', value: 'token', description: 'the single-use enrollment token (required)' },
      custody: {
        type: 'string',
        value: 'self|server',
        description: 'self: a new key, encrypted in --key-file; server: the issuer keeps the key (required)',
      },
      ...AGENT_FILE_OPTIONS,
    },
    examples: ['MANDATE_PASSPHRASE=… mandate agents onboard --token mt_… --custody self --key-file agent-key.json'],
    run: onboard,
  },
  {
    path: ['agents', 'present'],
    summary: "Print a presentation of this agent's chain for a target (and a verifier's challenge)",
    needs: 'agent',
    options: {
      target: { type: 'string', value: 'service', description: "the verifier's name or resource URI (required)" },
      challenge: { type: 'string', value: 'nonce', description: "the verifier's nonce (default: a random one)" },
      ...AGENT_FILE_OPTIONS,
    },
    examples: ['mandate agents present --target files.example.com --challenge n-0S6_WzA2Mj > vp.json'],
    run: present,
  },
  {
    path: ['agents', 'delegate'],
    summary: 'Print a DelegatedAgentCredential to another agent, with the chain it needs',
    needs: 'agent',
    options: {
      to: { type: 'string', value: 'did', description: "the delegatee's DID (required)" },
      scopes: { type: 'string', multiple: true, value: 'scope', description: 'scopes within this agent’s (required)' },
      depth: {
        type: 'string',
        value: 'n',
        description: 'further delegation allowed (default: one less than this agent’s)',
      },
      domains: {
        type: 'string',
        multiple: true,
        value: 'domain',
        description: 'domains within this agent’s (default: its)',
      },
      ...AGENT_FILE_OPTIONS,
    },
    examples: ['mandate agents delegate --to did:key:z6Mk… --scopes files:read --depth 0 > sub-agent.credentials'],
    run: delegateTo,
  },
];
