/**
 * Which URLs Mandate may fetch when someone else chose them (did:web hosts, ledger mirrors,
 * status lists): the verifier must not become a proxy into its own network. IP literals of
 * private, loopback and link-local ranges are refused unless allowed; plain http only for
 * loopback hosts and only when allowed (tests and local development). Host *names* that
 * resolve to private addresses cannot be seen from fetch in a browser; deployments that need
 * that guarantee put an egress proxy in front.
 */

export interface UrlPolicy {
  /** Fetch loopback hosts (127.0.0.0/8, ::1, localhost) over plain http. Off by default. */
  allowHttpLoopback?: boolean;
  /** Allow IP literals of private, loopback and link-local ranges. Off by default. */
  allowPrivateNetwork?: boolean;
}

export type HostClass = 'public' | 'loopback' | 'private';

function classifyIpv4(octets: number[]): HostClass {
  const [a = 0, b = 0] = octets;
  if (a === 127) return 'loopback';
  if (
    a === 0 || // 0.0.0.0/8 "this network" (RFC 1122 §3.2.1.3): reaches the local host
    a === 10 || // RFC 1918
    (a === 172 && b >= 16 && b <= 31) || // RFC 1918
    (a === 192 && b === 168) || // RFC 1918
    (a === 169 && b === 254) || // RFC 3927 link-local (cloud metadata endpoints live here)
    (a === 100 && b >= 64 && b <= 127) || // RFC 6598 shared address space
    a >= 224 // multicast, reserved, broadcast
  ) {
    return 'private';
  }
  return 'public';
}

/** Expands a WHATWG-serialized IPv6 literal (no brackets) to eight 16-bit groups. */
export function ipv6Groups(address: string): number[] | undefined {
  const [head = '', tail] = address.split('::') as [string, string?];
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function classifyIpv6(address: string): HostClass {
  const groups = ipv6Groups(address);
  if (!groups) return 'private'; // unparseable: fail closed
  const [g0 = 0, , , , , g5 = 0, g6 = 0, g7 = 0] = groups;
  if (groups.slice(0, 7).every((g) => g === 0)) return g7 === 1 ? 'loopback' : 'private'; // ::1, ::
  const embeddedIpv4 = (): HostClass => classifyIpv4([g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]);
  // RFC 4291 §2.5.5: IPv4-mapped ::ffff:a.b.c.d and the deprecated IPv4-compatible ::a.b.c.d
  // (WHATWG writes [::127.0.0.1] as [::7f00:1]): judge the embedded IPv4 address.
  if (groups.slice(0, 5).every((g) => g === 0) && (g5 === 0xffff || g5 === 0)) return embeddedIpv4();
  // RFC 6052 §2.1 NAT64 well-known prefix 64:ff9b::/96: a gateway translates it to the IPv4 one.
  if (g0 === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return embeddedIpv4();
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local (RFC 4193)
  if ((g0 & 0xffc0) === 0xfe80) return 'private'; // fe80::/10 link-local
  if ((g0 & 0xff00) === 0xff00) return 'private'; // ff00::/8 multicast
  return 'public';
}

/** How far from the public internet a URL host (WHATWG-normalized `URL.hostname`) is. */
export function classifyHost(hostname: string): HostClass {
  // A fully qualified name's trailing dot (`localhost.`) names the same host.
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback'; // RFC 6761 §6.3
  if (host.startsWith('[') && host.endsWith(']')) return classifyIpv6(host.slice(1, -1));
  // WHATWG URL already rewrote every IPv4 spelling (0x7f.1, 2130706433) to dotted decimal.
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (ipv4) return classifyIpv4(ipv4.slice(1).map(Number));
  return 'public';
}

/**
 * Parses `url` and applies the policy: https (or http to loopback with allowHttpLoopback), and
 * no private or loopback host unless allowed. Throws `fail(message)` otherwise.
 */
export function checkUrlPolicy(url: string, policy: UrlPolicy, fail: (message: string) => Error): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail('not a URL');
  }
  if (parsed.username || parsed.password) throw fail('URLs with credentials are refused');
  const hostClass = classifyHost(parsed.hostname);
  const httpAllowed = hostClass === 'loopback' && policy.allowHttpLoopback === true;
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && httpAllowed)) {
    throw fail(`${parsed.protocol} is refused: https only${hostClass === 'loopback' ? ' (http to loopback needs allowHttpLoopback)' : ''}`);
  }
  if (hostClass !== 'public' && !httpAllowed && policy.allowPrivateNetwork !== true) {
    throw fail(`a ${hostClass} host is refused (needs allowPrivateNetwork)`);
  }
  return parsed;
}
