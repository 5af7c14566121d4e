/**
 * `mandate`: the operator CLI. `run(argv)` parses `<group> <command> [args] [options]`, runs
 * the command against the issuer (or offline for `verify` and `keys generate`) and answers an
 * exit code from the table in errors.ts; it never throws and never calls process.exit, so it
 * can be driven in-process as well as through bin/mandate.mjs. docs/cli.md is the manual.
 */
import { createRequire } from 'node:module';
import { agentCommands } from './commands/agents.ts';
import { auditCommands } from './commands/audit.ts';
import { didCommands } from './commands/dids.ts';
import { keyCommands } from './commands/keys.ts';
import { statusListCommands } from './commands/status-lists.ts';
import { tokenCommands } from './commands/tokens.ts';
import { vcCommands } from './commands/vcs.ts';
import { verifyCommands } from './commands/verify.ts';
import { fetchCommands } from './commands/fetch.ts';
import { agentWalletCommands } from './commands/agent-wallet.ts';
import {
  checkArgs,
  createContext,
  Deadline,
  explainUnreachable,
  GLOBAL_OPTIONS,
  parseCommandLine,
  usage,
  type CommandSpec,
  type Env,
  type OptionSpec,
} from './command.ts';
import { CliError, describeError, EXIT, exitCodeFor, validationText, type ExitCode } from './errors.ts';
import { processIo, terminalSafe, type Io } from './output.ts';
import { didYouMean } from './suggest.ts';

export const COMMANDS: readonly CommandSpec[] = [
  ...tokenCommands,
  ...agentCommands,
  ...agentWalletCommands,
  ...vcCommands,
  ...statusListCommands,
  ...didCommands,
  ...auditCommands,
  ...verifyCommands,
  ...fetchCommands,
  ...keyCommands,
];

const EXIT_TEXT =
  'Exit codes: 0 ok · 1 internal error · 2 usage · 3 denied or refused · 4 issuer unreachable · 5 issuer failure';

function optionLines(options: Readonly<Record<string, OptionSpec>>): string {
  const rows = Object.entries(options).map(([name, o]) => {
    const short = 'short' in o && typeof o.short === 'string' ? `-${o.short}, ` : '';
    return [
      `${short}--${name}${o.value ? ` <${o.value}>` : ''}`,
      `${o.description}${o.multiple ? ' [repeatable; also comma-separated]' : ''}`,
    ] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}\n`).join('');
}

function commandList(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  return commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}\n`).join('');
}

export function topHelp(): string {
  return (
    'mandate: operate a Mandate issuer (enrollment, agents, credentials, status lists, DIDs, audit)\n' +
    'and verify presentations locally.\n\n' +
    'Usage: mandate <command> [<sub-command>] [arguments] [options]\n' +
    '       mandate --version\n\n' +
    `Commands:\n${commandList(COMMANDS)}\n` +
    `Global options:\n${optionLines(GLOBAL_OPTIONS)}\n` +
    'Environment: MANDATE_URL (or API_BASE_URL), MANDATE_ADMIN_KEY (or SERVICE_ADMIN_API_KEY), MANDATE_DEBUG=1\n' +
    `${EXIT_TEXT}\n\n` +
    'Run "mandate <command> --help" for a command\'s arguments and options.\n'
  );
}

function groupHelp(group: string, commands: readonly CommandSpec[]): string {
  return `Usage: mandate ${group} <sub-command> [arguments] [options]\n\nSub-commands:\n${commandList(commands)}\nRun "mandate ${group} <sub-command> --help" for details.\n`;
}

export function commandHelp(spec: CommandSpec): string {
  const args = spec.args ?? [];
  const argText = args.map((a) => ` <${a.name}>`).join('');
  const auth = {
    admin: 'Needs the issuer URL and the admin key.',
    issuer: 'Needs the issuer URL (public endpoint, no admin key).',
    agent: 'Acts as the agent of --key-file and --credentials (docs/cli.md §Agent commands); no admin key.',
    nothing: 'Runs offline: no issuer URL or admin key needed.',
  }[spec.needs];
  return (
    `Usage: mandate ${spec.path.join(' ')}${argText} [options]\n\n${spec.summary}.\n${auth}\n` +
    (args.length > 0 ? `\nArguments:\n${args.map((a) => `  <${a.name}>  ${a.description}\n`).join('')}` : '') +
    (spec.options && Object.keys(spec.options).length > 0 ? `\nOptions:\n${optionLines(spec.options)}` : '') +
    `\nGlobal options:\n${optionLines(GLOBAL_OPTIONS)}` +
    (spec.examples ? `\nExamples:\n${spec.examples.map((e) => `  ${e}\n`).join('')}` : '') +
    `\n${EXIT_TEXT}\n`
  );
}

/** The version in the package's manifest (this checkout's, or the installed package's: both export it). */
function packageVersion(): string {
  const manifest: unknown = createRequire(import.meta.url)('mandate/package.json');
  return typeof manifest === 'object' && manifest !== null && 'version' in manifest
    ? String(manifest.version)
    : 'unknown';
}

/**
 * An unknown first word, with the closest command when it looks like a typo (`tokns`), or the
 * group of a sub-command typed alone (`revoke-secret` → `agents revoke-secret`).
 */
function unknownCommand(word: string): CliError {
  const groups = [...new Set(COMMANDS.map((c) => c.path[0] as string))];
  let near = didYouMean(word, groups);
  if (near === '') {
    const sub = COMMANDS.find((c) => c.path.length > 1 && c.path[1] === word);
    if (sub !== undefined) near = `: did you mean "${sub.path.join(' ')}"?`;
  }
  return usage(`unknown command "${word.slice(0, 40)}"${near} (see mandate --help)`);
}

const isHelp = (word: string | undefined): boolean => word === '--help' || word === '-h';

async function dispatch(argv: readonly string[], env: Env, io: Io): Promise<ExitCode> {
  const [group, sub] = argv;
  if (group === undefined) {
    io.stderr(topHelp());
    return EXIT.USAGE;
  }
  if (isHelp(group)) {
    io.stdout(topHelp());
    return EXIT.OK;
  }
  if (group === '--version') {
    io.stdout(`${packageVersion()}\n`);
    return EXIT.OK;
  }
  if (group === 'help') return dispatch([...argv.slice(1), '--help'], env, io);
  const inGroup = COMMANDS.filter((c) => c.path[0] === group);
  if (inGroup.length === 0) throw unknownCommand(group);
  let spec: CommandSpec | undefined;
  let rest: readonly string[];
  if (inGroup.length === 1 && inGroup[0]?.path.length === 1) {
    spec = inGroup[0];
    rest = argv.slice(1);
  } else {
    if (sub === undefined || sub.startsWith('-')) {
      if (argv.slice(1).some(isHelp)) {
        io.stdout(groupHelp(group, inGroup));
        return EXIT.OK;
      }
      io.stderr(groupHelp(group, inGroup));
      return EXIT.USAGE;
    }
    spec = inGroup.find((c) => c.path[1] === sub);
    if (spec === undefined) {
      const near = didYouMean(
        sub,
        inGroup.map((c) => c.path[1] as string),
        `${group} `,
      );
      throw usage(`unknown sub-command "${group} ${sub.slice(0, 40)}"${near} (see mandate ${group} --help)`);
    }
    rest = argv.slice(2);
  }
  const parsed = parseCommandLine(spec, rest);
  if (parsed.options.help === true) {
    io.stdout(commandHelp(spec));
    return EXIT.OK;
  }
  checkArgs(spec, parsed.args);
  const deadline = new Deadline(parsed.options);
  try {
    return await spec.run(createContext(spec, parsed, env, io, deadline));
  } catch (error) {
    throw explainUnreachable(deadline.explain(error), parsed.options, env);
  }
}

/** Runs one command line; resolves to the process exit code (errors.ts). */
export async function run(argv: readonly string[], env: Env = process.env, io: Io = processIo): Promise<ExitCode> {
  try {
    return await dispatch(argv, env, io);
  } catch (error) {
    const code = exitCodeFor(error);
    const described = describeError(error);
    if (argv.includes('--json')) {
      // Compact: one line, like every error (JSON.stringify escapes any line feed inside).
      io.stderr(`${JSON.stringify({ error: { ...described, exitCode: code } })}\n`);
    } else {
      const where = [
        described.code,
        ...(described.status === undefined ? [] : [`HTTP ${described.status}`]),
        ...(described.reason === undefined ? [] : [described.reason]),
      ].join(', ');
      const hint =
        error instanceof CliError && error.code === 'USAGE'
          ? '\nRun "mandate --help" (or "mandate <command> --help") for usage.'
          : '';
      const text = described.message + validationText(described.details);
      // One line: a message (from the issuer, say) cannot break it or drive the terminal.
      io.stderr(`mandate: ${terminalSafe(text).replaceAll('\n', '\\n')} [${where}]${hint}\n`);
    }
    // Opt-in only: a stack is for the developer of the CLI, not for logs.
    if (code === EXIT.INTERNAL && env.MANDATE_DEBUG === '1' && error instanceof Error)
      io.stderr(`${error.stack ?? error.message}\n`);
    return code;
  }
}
