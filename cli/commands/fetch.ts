/**
 * `mandate fetch URL`: curl for agents. The request goes through `agent.fetch` (wallet/agent,
 * docs/agents.md), which answers the service's challenges — an OAuth 401/403 (RFC 6750 §3,
 * RFC 9449), a presentation challenge, a request for an RFC 9421 signature — with the agent of
 * the key file and the credentials file. The body is printed; the exit code says how it went
 * (docs/cli.md §`fetch`). `-v` shows every exchange on stderr: methods, URLs, statuses, the
 * challenges and what answered them by name, never a token, a proof, a secret or a presentation.
 */
import { readBounded } from '../../wallet/net/http.ts';
import { classifyHost } from '../../wallet/net/url-policy.ts';
import { AGENT_FILE_OPTIONS, loadAgent, type FetchLike } from '../agent-files.ts';
import type { CommandSpec } from '../command.ts';
import { stringOption, usage } from '../command.ts';
import { CliError, EXIT, type ExitCode } from '../errors.ts';
import { terminalSafe, type Io } from '../output.ts';

/** The most of a response body printed: a CLI is no download tool. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** The most of a `WWW-Authenticate` shown by -v. */
const MAX_CHALLENGE_CHARS = 400;

/** `Name: value` lines (RFC 9110 §5.1 field names) as request headers. */
function headersOf(values: readonly string[]): Headers {
  const headers = new Headers();
  for (const line of values) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*)$/.exec(line);
    // The value is not echoed: it may be a credential the user typed.
    if (match === null) throw new CliError('ARGUMENT_INVALID', '-H must be "Name: value"');
    try {
      headers.append(match[1] as string, match[2] as string);
    } catch {
      throw new CliError('ARGUMENT_INVALID', `-H ${match[1]}: the value is not a valid header value`);
    }
  }
  return headers;
}

/** What a request carries to answer a challenge, by name only. */
async function answerText(request: Request): Promise<string> {
  const parts: string[] = [];
  const scheme = /^(\S+)/.exec(request.headers.get('authorization') ?? '')?.[1];
  if (scheme === 'DPoP') parts.push('DPoP-bound token');
  else if (scheme === 'VP') parts.push('presentation');
  else if (scheme === 'Basic') parts.push('client_secret_basic');
  else if (scheme !== undefined) parts.push(`${scheme} token`);
  if (request.headers.has('dpop')) parts.push('DPoP proof');
  if (request.headers.has('signature-input')) parts.push('RFC 9421 signature');
  if (/^application\/x-www-form-urlencoded/i.test(request.headers.get('content-type') ?? '')) {
    const form = new URLSearchParams(await request.clone().text());
    const grant = form.get('grant_type');
    if (grant !== null) parts.unshift(`token request ${grant.replace(/^urn:ietf:params:oauth:grant-type:/, '')}`);
    if (form.has('client_assertion')) parts.push('private_key_jwt');
    if (form.has('client_secret')) parts.push('client_secret_post');
    if (form.has('scope')) parts.push(`scope "${form.get('scope') ?? ''}"`);
  }
  return parts.length === 0 ? '' : `  (${parts.join(', ')})`;
}

/** The URL without user-info or query: a query may carry anything. */
function shownUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}${parsed.search === '' ? '' : '?…'}`;
}

/**
 * The agent's transport: the command's --timeout on every request (discovery and token requests
 * included), and with -v a line per request and per answer on stderr.
 */
function transport(io: Io, signal: AbortSignal, verbose: boolean): FetchLike {
  return async (input, init) => {
    const request = new Request(input, init);
    if (verbose) io.stderr(terminalSafe(`> ${request.method} ${shownUrl(request.url)}${await answerText(request)}\n`));
    const response = await fetch(request, { signal });
    if (verbose) {
      const challenge = response.headers.get('www-authenticate');
      const shown = challenge === null ? '' : `  www-authenticate: ${challenge.slice(0, MAX_CHALLENGE_CHARS)}`;
      io.stderr(terminalSafe(`< ${response.status}${shown}\n`).replaceAll(/\n(?!$)/g, '\\n'));
    }
    return response;
  };
}

/** What a failure to reach the service (or its authorization server) is: unreachable, exit 4. */
function unreachable(error: unknown, url: string, signal: AbortSignal): CliError {
  const origin = new URL(url).origin;
  return new CliError(
    'SERVICE_UNREACHABLE',
    signal.aborted
      ? `no complete answer from ${origin} within --timeout`
      : `${origin} could not be reached${error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message.slice(0, 120)})` : ''}`,
  );
}

function exitFor(status: number): ExitCode {
  if (status >= 200 && status < 300) return EXIT.OK;
  return status >= 500 ? EXIT.ISSUER_FAILED : EXIT.DENIED;
}

export const fetchCommands: readonly CommandSpec[] = [
  {
    path: ['fetch'],
    summary: "Send a request as the agent, answering the service's challenges (curl for agents)",
    needs: 'agent',
    args: [{ name: 'url', description: 'the URL to request (https; http to 127.0.0.1 or localhost)' }],
    options: {
      request: { type: 'string', short: 'X', value: 'method', description: 'the method (default GET, POST with -d)' },
      data: { type: 'string', short: 'd', value: 'body', description: 'the request body, sent as is' },
      header: { type: 'string', short: 'H', multiple: true, value: 'Name: value', description: 'a request header' },
      ...AGENT_FILE_OPTIONS,
      issuer: {
        type: 'string',
        value: 'url',
        description: "the authorization server the agent trusts (its issuer's base URL)",
      },
      'allow-http-loopback': {
        type: 'boolean',
        description: 'follow metadata and token URLs over http on 127.0.0.1/localhost (local services)',
      },
      verbose: { type: 'boolean', short: 'v', description: 'show each exchange and challenge answered on stderr' },
    },
    examples: [
      'mandate fetch https://mcp.example.com/mcp -d \'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\' -H \'Content-Type: application/json\' --key-file agent-key.json --issuer https://issuer.example.com',
    ],
    async run(ctx) {
      const url = ctx.args[0] as string;
      const target = URL.canParse(url) ? new URL(url) : undefined;
      // The agent's token and proofs would cross the network in clear (RFC 6750 §5.3: TLS).
      if (
        target === undefined ||
        !(target.protocol === 'https:' || (target.protocol === 'http:' && classifyHost(target.hostname) === 'loopback'))
      )
        throw new CliError('ARGUMENT_INVALID', '<url> must be https (plain http only to 127.0.0.1 or localhost)');
      const rawHeaders = ctx.options.header;
      const headers = headersOf(Array.isArray(rawHeaders) ? rawHeaders.map(String) : []);
      const body = stringOption(ctx.options, 'data');
      const method = (stringOption(ctx.options, 'request') ?? (body === undefined ? 'GET' : 'POST')).toUpperCase();
      if ((method === 'GET' || method === 'HEAD') && body !== undefined) throw usage(`-X ${method} takes no -d body`);
      const signal = ctx.signal;
      const agent = await loadAgent(ctx, {
        issuer: stringOption(ctx.options, 'issuer'),
        allowHttpLoopback: ctx.options['allow-http-loopback'] === true,
        fetch: transport(ctx.io, signal, ctx.options.verbose === true),
      });
      let response: Response;
      let bytes: Uint8Array | undefined;
      try {
        response = await agent.fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
        bytes = await readBounded(response.body, MAX_BODY_BYTES);
      } catch (error) {
        if (error instanceof TypeError || (error instanceof DOMException && signal.aborted))
          throw unreachable(error, url, signal);
        throw error;
      }
      const text = bytes === undefined ? undefined : new TextDecoder().decode(bytes);
      if (text === undefined) ctx.io.stderr(`mandate: the body is larger than ${MAX_BODY_BYTES} bytes: not shown\n`);
      ctx.print(text ?? '', {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        ...(text === undefined ? {} : { body: text }),
      });
      if (!response.ok && !ctx.json)
        ctx.io.stderr(`mandate: ${new URL(url).origin} answered HTTP ${response.status}\n`);
      return exitFor(response.status);
    },
  },
];
