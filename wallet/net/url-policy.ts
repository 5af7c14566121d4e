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
    (a === 198 && (b & 0xfe) === 18) || // RFC 2544 benchmarking 198.18/15
    (a === 192 && b === 0 && octets[2] === 0) || // RFC 6890 IETF protocol assignments 192.0.0/24
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
  const groups =
    tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function classifyIpv6(address: string): HostClass {
  const groups = ipv6Groups(address);
  if (!groups) return 'private'; // unparseable: fail closed
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const ipv4In = (high: number, low: number): HostClass => classifyIpv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  // Addresses a host, gateway or tunnel turns into the IPv4 address they embed: judge that one.
  // `::`, ::1 and RFC 4291 §2.5.5 IPv4-compatible ::a.b.c.d (0.0.0.0/8 and 0.0.0.1 are refused
  // as IPv4, and ::1 is loopback as 127/8 is); IPv4-mapped ::ffff:a.b.c.d; RFC 6145 §2.1
  // IPv4-translated ::ffff:0:a.b.c.d; RFC 6052 §2.1 NAT64 64:ff9b::/96.
  if (!(g0 | g1 | g2 | g3) && ((!g4 && (!g5 || g5 === 0xffff)) || (g4 === 0xffff && !g5)))
    return !(g4 | g5 | g6) && g7 === 1 ? 'loopback' : ipv4In(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && !(g2 | g3 | g4 | g5)) return ipv4In(g6, g7);
  if (g0 === 0x2002) return ipv4In(g1, g2); // RFC 3056 6to4 2002:a.b.c.d::/48
  return (g0 & 0xfe00) === 0xfc00 || // fc00::/7 unique local (RFC 4193)
    (g0 & 0xff80) === 0xfe80 || // fe80::/10 link-local and fec0::/10 site-local (RFC 3879, still routed inside sites)
    g0 >= 0xff00 || // ff00::/8 multicast
    (g0 === 0x64 && g1 === 0xff9b && g2 === 1) || // 64:ff9b:1::/48 local-use NAT64 (RFC 8215)
    (g0 === 0x2001 && !g1) || // 2001::/32 Teredo (RFC 4380): a tunnel to an IPv4 client
    (g0 === 0x100 && !(g1 | g2 | g3)) // 100::/64 discard-only (RFC 6666)
    ? 'private'
    : 'public';
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
    throw fail(
      `${parsed.protocol} is refused: https only${hostClass === 'loopback' ? ' (http to loopback needs allowHttpLoopback)' : ''}`,
    );
  }
  if (hostClass !== 'public' && !httpAllowed && policy.allowPrivateNetwork !== true) {
    // A loopback host has two ways in; did:web picks http only under allowHttpLoopback, so name both.
    const needs =
      hostClass === 'loopback'
        ? 'allowHttpLoopback admits it over http, allowPrivateNetwork over https'
        : 'needs allowPrivateNetwork';
    throw fail(`a ${hostClass} host is refused (${needs})`);
  }
  return parsed;
}
