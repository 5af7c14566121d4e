/**
 * What a command is (a name, its arguments and options, what it needs) and the context it runs
 * in: parsed values, the output channel, and the issuer clients, built lazily so `keys generate`
 * and `verify` never need a URL or a key. Parsing is Node's `util.parseArgs` in strict mode: an
 * unknown option is a usage error, never silently ignored.
 */
import { parseArgs } from 'node:util';
import { IssuerClientError } from '../wallet/client/errors.ts';
import { IssuerClient } from '../wallet/client/issuer-client.ts';
import { classifyHost } from '../wallet/net/url-policy.ts';
import { CliError, type ExitCode } from './errors.ts';
import { jsonText, terminalSafe, type Io } from './output.ts';
import { didYouMean } from './suggest.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** A one-letter alias (`-X`). */
  short?: string;
  multiple?: boolean;
  /** Placeholder shown in help (`--scope <scope>`). */
  value?: string;
  description: string;
}

export interface ArgSpec {
  name: string;
  description: string;
}

export interface CommandSpec {
  /** ['tokens', 'mint'], or ['verify'] for a command without sub-commands. */
  path: readonly string[];
  summary: string;
  args?: readonly ArgSpec[];
  options?: Readonly<Record<string, OptionSpec>>;
  /** nothing: runs offline; issuer: a URL; admin: a URL and the admin key; agent: the agent's key file. */
  needs: 'nothing' | 'issuer' | 'admin' | 'agent';
  examples?: readonly string[];
  run(ctx: CommandContext): Promise<ExitCode>;
}

export type Env = Readonly<Record<string, string | undefined>>;

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CommandContext {
  args: readonly string[];
  options: OptionValues;
  json: boolean;
  io: Io;
  env: Env;
  client(): IssuerClient;
  /**
   * The command's --timeout deadline, started by the first issuer call: pass it to every client
   * call so retries and Retry-After waits stay inside it too.
   */
  readonly signal: AbortSignal;
  /** Prints `human` or, with --json, `data` as one JSON document. */
  print(human: string, data: unknown): void;
}

export const DEFAULT_URL = 'http://127.0.0.1:8787';
const DEFAULT_TIMEOUT_SECONDS = 10;

/** Options every command accepts. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec & { short?: string }>> = Object.freeze({
  url: {
    type: 'string',
    value: 'url',
    description: `issuer base URL (env MANDATE_URL, API_BASE_URL; default ${DEFAULT_URL})`,
  },
  'admin-key': {
    type: 'string',
    value: 'key',
    description: 'admin API key (prefer env MANDATE_ADMIN_KEY or SERVICE_ADMIN_API_KEY: flags show in ps)',
  },
  timeout: {
    type: 'string',
    value: 'seconds',
    description: `deadline for the whole command, retries included (default ${DEFAULT_TIMEOUT_SECONDS})`,
  },
  json: { type: 'boolean', description: 'print one JSON document (errors as JSON on stderr)' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
});

export function usage(message: string): CliError {
  return new CliError('USAGE', message);
}

/**
 * `--name value` and `-x value` as `--name=value` and `-xvalue` for the options that take a
 * value: the next word is the value even when it starts with a dash, as in curl and git.
 * parseArgs refuses such a value as ambiguous, and values from elsewhere do start with one: an
 * enrollment token is base64url, whose alphabet has `-` (1 in 64 begins with it).
 */
function attachValues(argv: readonly string[], config: Readonly<Record<string, OptionSpec>>): string[] {
  const takesValue = new Set<string>();
  for (const [name, option] of Object.entries(config)) {
    if (option.type !== 'string') continue;
    takesValue.add(`--${name}`);
    if (option.short) takesValue.add(`-${option.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    const value = argv[i + 1];
    if (word === '--') return [...out, ...argv.slice(i)];
    if (!takesValue.has(word) || value === undefined || !value.startsWith('-')) out.push(word);
    else {
      out.push(word.startsWith('--') ? `${word}=${value}` : `${word}${value}`);
      i++;
    }
  }
  return out;
}

/** Parses `argv` (after the command words) against the command's options plus the global ones. */
export function parseCommandLine(
  spec: CommandSpec,
  argv: readonly string[],
): { options: OptionValues; args: string[] } {
  const config = { ...GLOBAL_OPTIONS, ...spec.options };
  let parsed;
  try {
    parsed = parseArgs({
      args: attachValues(argv, config),
      strict: true,
      allowPositionals: true,
      options: Object.fromEntries(
        Object.entries(config).map(([name, option]) => [
          name,
          {
            type: option.type,
            ...(option.multiple ? { multiple: true } : {}),
            ...('short' in option && option.short ? { short: option.short } : {}),
          },
        ]),
      ),
    });
  } catch (error) {
    // parseArgs names the option, never its value: safe to show.
    const message =
      error instanceof Error ? (error.message.split('\n')[0] ?? 'invalid arguments') : 'invalid arguments';
    const unknown = /^Unknown option '--([^']+)'/.exec(message)?.[1];
    const near = unknown === undefined ? '' : didYouMean(unknown, Object.keys(config), '--');
    throw usage(near === '' ? message : `Unknown option '--${unknown}'${near}`);
  }
  return { options: parsed.values, args: parsed.positionals };
}

export function stringOption(options: OptionValues, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

export function requiredOption(options: OptionValues, name: string): string {
  const value = stringOption(options, name);
  if (value === undefined || value === '') throw usage(`--${name} is required`);
  return value;
}

/** A repeatable option; each value may also be a comma-separated list (`--scope a,b`). */
export function listOption(options: OptionValues, name: string): string[] {
  const value = options[name];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export function integerOption(options: OptionValues, name: string, min: number, max: number): number | undefined {
  const text = stringOption(options, name);
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new CliError('ARGUMENT_INVALID', `--${name} must be an integer from ${min} to ${max}`);
  }
  return Number(text);
}

export function choiceOption<T extends string>(
  options: OptionValues,
  name: string,
  choices: readonly T[],
): T | undefined {
  const text = stringOption(options, name);
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text))
    throw new CliError('ARGUMENT_INVALID', `--${name} must be one of ${choices.join(', ')}`);
  return text as T;
}

function firstSet(...values: (string | undefined)[]): string | undefined {
  return values.find((v) => v !== undefined && v !== '');
}

/** The issuer URL a command uses, and what set it (the flag, a variable, or the default). */
export function issuerUrl(options: OptionValues, env: Env): { url: string; from: string } {
  const sources: [string, string | undefined][] = [
    ['--url', stringOption(options, 'url')],
    ['MANDATE_URL', env.MANDATE_URL],
    ['API_BASE_URL', env.API_BASE_URL],
  ];
  const set = sources.find(([, value]) => value !== undefined && value !== '');
  return set === undefined ? { url: DEFAULT_URL, from: 'default' } : { url: set[1] as string, from: set[0] };
}

/**
 * An unanswered call, with the URL it went to and how to change it: after `PORT=31787 npm
 * start`, "could not be reached" alone does not say that the CLI still tried port 8787. Only
 * the origin and path are shown: a URL's user-info could be a password.
 */
export function explainUnreachable(error: unknown, options: OptionValues, env: Env): unknown {
  if (!(error instanceof IssuerClientError) || (error.code !== 'NETWORK_ERROR' && error.code !== 'TIMEOUT'))
    return error;
  const { url, from } = issuerUrl(options, env);
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const shown = parsed === undefined ? url : `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  const how =
    from === 'default'
      ? 'the default: set MANDATE_URL or pass --url to the URL the issuer printed when it started'
      : `set by ${from}`;
  return new IssuerClientError(error.code, `${error.message}; tried ${shown} (${how})`);
}

/**
 * One deadline for a whole command (--timeout). The client's own timeout is per attempt, and a
 * GET is tried three times with Retry-After waits of up to 30 s in between: without this, "no
 * answer within --timeout" could take minutes. Started lazily, so a bad --timeout only matters
 * to commands that call the issuer.
 */
export class Deadline {
  readonly #options: OptionValues;
  #signal: AbortSignal | undefined;
  #ms: number | undefined;

  constructor(options: OptionValues) {
    this.#options = options;
  }

  /** Milliseconds from --timeout (ARGUMENT_INVALID when it is not 1–3600 seconds). */
  get ms(): number {
    return (this.#ms ??= (integerOption(this.#options, 'timeout', 1, 3600) ?? DEFAULT_TIMEOUT_SECONDS) * 1000);
  }

  get signal(): AbortSignal {
    return (this.#signal ??= AbortSignal.timeout(this.ms));
  }

  /**
   * The client reports a caller's abort as ABORTED (exit 5); when the caller is this deadline,
   * the operator was promised TIMEOUT (exit 4, docs/cli.md §Exit codes).
   */
  explain(error: unknown): unknown {
    const ours = this.#signal?.aborted === true && error instanceof IssuerClientError && error.code === 'ABORTED';
    return ours
      ? new IssuerClientError('TIMEOUT', `no complete answer within --timeout ${this.ms / 1000} s (retries included)`)
      : error;
  }
}

/** The context a command runs in; clients are built on first use, with the URL and key resolved then. */
export function createContext(
  spec: CommandSpec,
  parsed: { options: OptionValues; args: string[] },
  env: Env,
  io: Io,
  deadline: Deadline,
): CommandContext {
  const { options } = parsed;
  const json = options.json === true;
  const url = (): string => {
    const value = issuerUrl(options, env).url;
    // Checked here to name this CLI's terms: the client would say "use https or allowInsecureHttp",
    // an option of the library that no flag sets (the admin key must not travel in clear).
    const parsed = URL.canParse(value) ? new URL(value) : undefined;
    if (parsed?.protocol === 'http:' && classifyHost(parsed.hostname) !== 'loopback') {
      throw new CliError(
        'ARGUMENT_INVALID',
        'the issuer URL must be https (plain http only to this machine, 127.0.0.1 or localhost: the admin key would travel in clear)',
      );
    }
    return value;
  };
  const adminKey = (): string | undefined => {
    const key = firstSet(stringOption(options, 'admin-key'), env.MANDATE_ADMIN_KEY, env.SERVICE_ADMIN_API_KEY);
    if (key === undefined && spec.needs === 'admin') {
      throw new CliError(
        'ADMIN_KEY_MISSING',
        `"mandate ${spec.path.join(' ')}" needs the admin key: set MANDATE_ADMIN_KEY (or SERVICE_ADMIN_API_KEY) or pass --admin-key`,
      );
    }
    return key;
  };
  let client: IssuerClient | undefined;
  return {
    args: parsed.args,
    options,
    json,
    io,
    env,
    // Any one attempt may use the whole --timeout; ctx.signal bounds all of them together.
    client: () => (client ??= new IssuerClient({ baseUrl: url(), adminKey: adminKey(), timeoutMs: deadline.ms })),
    get signal() {
      return deadline.signal;
    },
    print(human, data) {
      io.stdout(json ? jsonText(data) : terminalSafe(human));
    },
  };
}

/** Checks the number of positional arguments against the spec (all required). */
export function checkArgs(spec: CommandSpec, args: readonly string[]): void {
  const expected = spec.args?.length ?? 0;
  if (args.length < expected) throw usage(`missing <${spec.args?.[args.length]?.name ?? 'argument'}>`);
  // The value itself is not echoed: a misplaced secret must not reach a terminal log.
  if (args.length > expected) throw usage(`unexpected argument #${expected + 1} (expected ${expected})`);
  const empty = args.findIndex((arg) => arg.trim() === '');
  if (empty >= 0) throw usage(`<${spec.args?.[empty]?.name ?? 'argument'}> is empty`);
}
