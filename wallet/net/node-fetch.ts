/**
 * Node's transport for wallet/net's reads: node:http(s), with the network policy applied to the
 * addresses a host name resolves to, inside the socket's own DNS lookup.
 *
 * `checkUrlPolicy` judges a URL's host as written. A host *name* passes it and can still resolve
 * to a private or loopback address: an internal alias (`did:web:intranet-alias.example`), or DNS
 * rebinding, which answers the check with a public address and the connection with a private
 * one. Here the address judged is the address connected to, so neither gets through. Browsers
 * hide addresses from fetch; there an egress proxy does this job (url-policy.ts).
 *
 * Used by `fetchJson` in Node when the caller supplied no `fetch` of its own and a `urlPolicy`.
 * Reached through `process.getBuiltinModule` (as crypto/ed25519-node.ts reaches node:crypto), so
 * browser bundles carry none of it.
 */
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import type * as NodeHttp from 'node:http';
import type * as NodeStream from 'node:stream';
import { MandateError } from '../crypto/errors.ts';
import type { FetchLike } from './http.ts';
import { classifyHost, type UrlPolicy } from './url-policy.ts';

export type GetBuiltinModule = (id: string) => unknown;

/** A host name resolved to an address the network policy refuses (thrown from the DNS lookup). */
export class AddressRefusedError extends MandateError<'ADDRESS_REFUSED'> {
  override name = 'AddressRefusedError';
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;
/** `dns.lookup`'s shape, as node:net calls it (with `all: true` when it races address families). */
export type Lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void;

/**
 * Why `address`, which `hostname` resolved to, may not be connected to under `policy`; undefined
 * when it may. The same rules as `checkUrlPolicy`: loopback and private addresses need
 * `allowPrivateNetwork`, except that a loopback name (`localhost`) may reach a loopback address
 * with `allowHttpLoopback`.
 */
export function refusedAddress(hostname: string, address: string, policy: UrlPolicy): string | undefined {
  let host: string;
  try {
    // The WHATWG serialization, which classifyHost reads (::ffff:127.0.0.1 becomes [::ffff:7f00:1]).
    host = new URL(`http://${address.includes(':') ? `[${address}]` : address}/`).hostname;
  } catch {
    return `${hostname} resolves to an unreadable address`;
  }
  const addressClass = classifyHost(host);
  if (addressClass === 'public' || policy.allowPrivateNetwork === true) return undefined;
  if (addressClass === 'loopback' && policy.allowHttpLoopback === true && classifyHost(hostname) === 'loopback')
    return undefined;
  // Not the address itself: this message reaches whoever named the host (a verifier's refusal
  // body), and would map the verifier's internal DNS for them.
  // The setting that admits this host: a loopback name reaching a loopback address needs only allowHttpLoopback.
  const needs =
    addressClass === 'loopback' && classifyHost(hostname) === 'loopback' ? 'allowHttpLoopback' : 'allowPrivateNetwork';
  return `${hostname.slice(0, 253)} resolves to a ${addressClass} address (needs ${needs})`;
}

/**
 * `lookup` with every resolved address judged by `policy`: one refused address refuses the host,
 * so a resolver cannot slip a private address in among public ones.
 */
export function guardedLookup(policy: UrlPolicy, lookup: Lookup): Lookup {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const all = addresses as LookupAddress[];
      for (const { address } of all) {
        const refusal = refusedAddress(hostname, address, policy);
        if (refusal !== undefined) return callback(new AddressRefusedError('ADDRESS_REFUSED', refusal), []);
      }
      const first = all[0];
      if (options.all === true) return callback(null, all);
      if (first === undefined)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}

/** A Web `Response` reading the body of a node:http response as a stream. */
function toWebResponse(message: NodeHttp.IncomingMessage, stream: typeof NodeStream): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    for (const each of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, each);
  }
  const status = message.statusCode ?? 0;
  // Fetch §2.2.3: these statuses have no body, and Response refuses one for them.
  const nullBody = status === 204 || status === 205 || status === 304;
  if (nullBody) message.resume();
  const body = nullBody ? null : (stream.Readable.toWeb(message) as ReadableStream<Uint8Array>);
  return new Response(body, { status, headers });
}

/**
 * A `FetchLike` for GET requests over node:http(s) that connects only to addresses `policy`
 * allows. It never follows redirects (node:http does not) and honours `init.signal` for the
 * whole exchange, headers and body.
 */
export function guardedNodeFetch(getBuiltinModule: GetBuiltinModule, policy: UrlPolicy): FetchLike {
  const http = getBuiltinModule('node:http') as typeof NodeHttp;
  const https = getBuiltinModule('node:https') as typeof NodeHttp;
  const stream = getBuiltinModule('node:stream') as typeof NodeStream;
  const dns = getBuiltinModule('node:dns') as { lookup: Lookup };
  const lookup = guardedLookup(policy, dns.lookup);
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      let settled = false;
      const fail = (error: unknown): void => {
        if (settled) return;
        settled = true;
        request.destroy();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an Error, or an abort's own reason (as fetch)
        reject(error);
      };
      const request = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: init.method ?? 'GET',
          headers: Object.fromEntries(new Headers(init.headers)),
          lookup,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (message) => {
          settled = true;
          try {
            resolve(toWebResponse(message, stream));
          } catch (error) {
            message.destroy();
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        },
      );
      request.on('error', fail);
      // node:http answers a 101 (Switching Protocols) with neither 'response' nor 'error': it
      // destroys the socket, and an abort after that does nothing. Without these the promise
      // would never settle, and a cached resolver would keep that DID's lookup in flight forever.
      request.on('upgrade', (_message, socket: NodeStream.Duplex) => {
        socket.destroy();
        fail(new Error('the host switched protocols (HTTP 101)'));
      });
      request.on('close', () => fail(new Error('the connection closed before a response')));
      init.signal?.addEventListener('abort', () => fail(init.signal?.reason), { once: true });
      request.end();
    });
}
