/**
 * `mandate verify <vp.json>`: verifies a presentation LOCALLY with the in-process verifier
 * (wallet/vc/verify.ts), exactly as a service would: no call to the issuer's /v1/vp/verify.
 * DIDs are resolved through a cached did:key + did:web resolver (https only, unless
 * --allow-http-loopback for an issuer on this machine) and status lists are fetched and their
 * signatures checked by the status-list client. Exit 0 when valid, 3 when denied.
 */
import { readFile, stat } from 'node:fs/promises';
import { parseJson } from '../../wallet/crypto/json-parse.ts';
import { type JsonValue } from '../../wallet/crypto/json-value.ts';
import type { CommandSpec } from '../command.ts';
import { listOption, requiredOption, stringOption, usage } from '../command.ts';
import { CliError, EXIT } from '../errors.ts';
import type { Io } from '../output.ts';

/** Larger than any presentation the verifier accepts (64 KiB canonical), so its own limit decides. */
const MAX_FILE_BYTES = 1024 * 1024;

async function readStdin(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of io.stdin()) {
    const buffer =
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    total += buffer.length;
    if (total > MAX_FILE_BYTES) throw new CliError('FILE_UNREADABLE', `stdin is larger than ${MAX_FILE_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The presentation file as JSON (strict parser: no duplicate-prototype keys, bounded depth);
 * "-" reads it from the Io's stdin.
 */
export async function readPresentation(path: string, io: Io): Promise<JsonValue> {
  let text: string;
  if (path === '-') {
    text = await readStdin(io);
  } else {
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new CliError('FILE_UNREADABLE', `${path} is not a file`);
      if (info.size > MAX_FILE_BYTES)
        throw new CliError('FILE_UNREADABLE', `${path} is larger than ${MAX_FILE_BYTES} bytes`);
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError('FILE_UNREADABLE', `cannot read ${path}`);
    }
  }
  try {
    return parseJson(text, { maxBytes: MAX_FILE_BYTES });
  } catch (error) {
    throw new CliError(
      'FILE_INVALID',
      `${path === '-' ? 'stdin' : path} is not JSON: ${error instanceof Error ? error.message : 'unreadable'}`,
    );
  }
}

export const verifyCommands: readonly CommandSpec[] = [
  {
    path: ['verify'],
    summary: 'Verify a presentation locally with the in-process verifier (no issuer call)',
    needs: 'nothing',
    args: [{ name: 'vp.json', description: 'the VerifiablePresentation file ("-" for stdin)' }],
    options: {
      'trusted-issuer': {
        type: 'string',
        multiple: true,
        value: 'did',
        description: 'an issuer whose AgentCredentials are accepted; at least one unless --allow-self-signed',
      },
      'trusted-grant-issuer': {
        type: 'string',
        multiple: true,
        value: 'did',
        description: 'a provider whose DelegationGrantCredentials are accepted',
      },
      target: {
        type: 'string',
        value: 'service',
        description: "this service's name or resource URI: the proof's domain must equal or cover it (required)",
      },
      challenge: { type: 'string', value: 'nonce', description: 'the nonce handed out; the proof must carry it' },
      scope: { type: 'string', multiple: true, value: 'scope', description: 'a scope the request needs' },
      'allow-self-signed': { type: 'boolean', description: 'accept a self-issued root credential (development only)' },
      'allow-http-loopback': {
        type: 'boolean',
        description: 'resolve did:web and status lists over http on 127.0.0.1/localhost (local issuers)',
      },
    },
    examples: [
      'mandate verify vp.json --trusted-issuer did:web:issuer.example.com --target files.example.com --challenge n-0S6_WzA2Mj',
    ],
    async run(ctx) {
      const trustedIssuers = listOption(ctx.options, 'trusted-issuer');
      const allowSelfSigned = ctx.options['allow-self-signed'] === true;
      if (trustedIssuers.length === 0 && !allowSelfSigned)
        throw usage('at least one --trusted-issuer is required (or --allow-self-signed)');
      const expectedDomain = requiredOption(ctx.options, 'target');
      const challenge = stringOption(ctx.options, 'challenge');
      const requiredScopes = listOption(ctx.options, 'scope');
      const trustedGrantIssuers = listOption(ctx.options, 'trusted-grant-issuer');
      const presentation = await readPresentation(ctx.args[0] as string, ctx.io);
      // Without it any presentation made for this target passes, however old or often seen: say
      // so on stderr (stdout stays the verdict, or the one JSON document of --json).
      if (challenge === undefined)
        ctx.io.stderr(
          'mandate: warning: no --challenge: the presentation is not checked against a nonce you issued, so a replayed one passes\n',
        );

      // Loaded here, not at start-up: only this command needs the verifier and the resolvers.
      const [
        { createCachedResolver },
        { resolveDidKey },
        { createResolver },
        { createKeyResolver },
        { createWebResolver },
        { createStatusListClient },
        { verifyPresentation },
      ] = await Promise.all([
        import('../../wallet/did/cache.ts'),
        import('../../wallet/did/key.ts'),
        import('../../wallet/did/registry.ts'),
        import('../../wallet/did/verification-method.ts'),
        import('../../wallet/did/web.ts'),
        import('../../wallet/status/client.ts'),
        import('../../wallet/vc/verify.ts'),
      ]);
      const policy = { allowHttpLoopback: ctx.options['allow-http-loopback'] === true };
      const resolver = createCachedResolver(
        createResolver({ methods: { key: resolveDidKey, web: createWebResolver(policy) } }),
      );
      const statusLists = createStatusListClient({ resolveKey: createKeyResolver(resolver), ...policy });
      const result = await verifyPresentation(presentation, {
        trustedIssuers,
        trustedGrantIssuers,
        expectedDomain,
        resolver,
        statusLists,
        allowSelfSigned,
        ...(challenge === undefined ? {} : { expectedChallenge: challenge }),
        ...(requiredScopes.length === 0 ? {} : { requiredScopes }),
      });
      const checks = result.checks
        .map(
          (c) =>
            `${c.ok ? '✓' : '✗'} ${c.check}${c.ok ? '' : `  ${c.reason ?? ''}${c.message ? `: ${c.message}` : ''}`}\n`,
        )
        .join('');
      // The library names its options; this CLI has a flag instead.
      const loopbackRefused =
        !result.valid &&
        policy.allowHttpLoopback !== true &&
        /a loopback host is refused|http to loopback/.test(result.message);
      const verdict = result.valid
        ? `VALID  agent ${result.agentDid}\n  effective scopes: ${result.effectiveScopes.join(', ') || '-'}\n  chain: ${result.chain.map((l) => `${l.type} ${l.id}`).join(' → ')}\n`
        : `DENIED  ${result.reason}: ${result.message} (check: ${result.failedCheck})\n${loopbackRefused ? 'hint: a DID or status list on this machine (127.0.0.1, localhost) needs --allow-http-loopback\n' : ''}`;
      ctx.print(checks + verdict, result);
      return result.valid ? EXIT.OK : EXIT.DENIED;
    },
  },
];
