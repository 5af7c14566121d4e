/**
 * Where authority applies: when a `domains` entry covers a target (docs/protocol.md §Where
 * authority applies). One rule, used by every place that compares domains: the verifier
 * (the presentation's proof `domain` and the leaf's `domains` against `expectedDomain`),
 * delegation narrowing (DOMAIN_ESCALATION), the wallet's choice of credential, the issuer's
 * token endpoint (`resource`, RFC 8707) and the console's explanation of the field.
 *
 * - A **host entry** (`files.example.com`, `files.example.com:8443`, `[::1]:3000`) covers the
 *   resource URIs at exactly that host and port: `https://…`, or `http://…` when the host is a
 *   loopback address (127.0.0.0/8, ::1, localhost). No subdomain, no other port: an entry
 *   without a port covers only the scheme's default port. It also covers the same host entry
 *   (a host compares case-insensitively, IDNs by their A-label: WHATWG URL host parsing).
 * - A **URI entry** (`https://files.example.com/mcp`) covers that URI only: not a path under
 *   it, not its host.
 * - Anything else (a DID, a service name that is not a host) covers only itself, exactly.
 *
 * A resource URI with userinfo (`https://user@host/`) or a fragment is covered by nothing, nor
 * is one with a backslash, white space or a control character: parsers disagree about where
 * the host of such a string ends (WHATWG reads `\` as `/`, RFC 3986 does not).
 */

/** A host and, when the entry names one, its port (decimal, no leading zeros). */
interface HostPort {
  hostname: string;
  port: string | undefined;
}

/** A resource URI: `http:` or `https:` and a host, no userinfo, no fragment. */
interface ResourceUri {
  scheme: 'http:' | 'https:';
  hostname: string;
  /** The port the URI reaches: its own, else the scheme's default. */
  port: string;
  /** Whether the URI spells its port (a non-default one: URL drops a default port). */
  explicitPort: boolean;
  /** WHATWG serialization: the host lower-cased and in A-labels, a default port dropped. */
  href: string;
}

// Characters no host entry or resource URI this rule compares may contain: white space,
// controls, and the ones that end or reinterpret an authority (`\`, `@`, `#`).
const UNSAFE = /[\s\p{Cc}\\]/u;
const PORT = /^\d{1,5}$/;
const HTTP_URI = /^https?:\/\//i;
const DEFAULT_PORT = { 'http:': '80', 'https:': '443' } as const;

/** `host` parsed as URL host parsing does (lower case, A-labels, IPv4/IPv6 canonical); undefined if it is not one. */
function parseHostname(host: string): string | undefined {
  if (host.length === 0 || /[/?#@:]/.test(host.replace(/^\[[^\]]*\]$/, '[]'))) return undefined;
  try {
    const url = new URL(`https://${host}/`);
    return url.hostname.length > 0 ? url.hostname : undefined;
  } catch {
    return undefined;
  }
}

/** A host entry `host` or `host:port` (IPv6 in brackets), else undefined. */
export function parseHostEntry(entry: string): HostPort | undefined {
  if (entry.length === 0 || UNSAFE.test(entry)) return undefined;
  const match = /^(.*?)(?::(\d+))?$/.exec(entry);
  const host = match?.[1] ?? '';
  const portText = match?.[2];
  if (portText !== undefined && !PORT.test(portText)) return undefined;
  const portNumber = portText === undefined ? undefined : Number(portText);
  if (portNumber !== undefined && (portNumber < 1 || portNumber > 65535)) return undefined;
  const hostname = parseHostname(host);
  if (hostname === undefined) return undefined;
  return { hostname, port: portNumber === undefined ? undefined : String(portNumber) };
}

/** A resource URI this rule can place (http or https, a host, no userinfo, no fragment), else undefined. */
function parseResourceUri(target: string): ResourceUri | undefined {
  if (!HTTP_URI.test(target) || UNSAFE.test(target) || target.includes('#')) return undefined;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  // userinfo: URL keeps `@` out of the host; any `@` before the path means there was some.
  const authority = target.slice(target.indexOf('//') + 2).split(/[/?]/, 1)[0] ?? '';
  if (url.username !== '' || url.password !== '' || authority.includes('@') || url.hostname === '') return undefined;
  const scheme = url.protocol as 'http:' | 'https:';
  return {
    scheme,
    hostname: url.hostname,
    port: url.port === '' ? DEFAULT_PORT[scheme] : url.port,
    explicitPort: url.port !== '',
    href: url.href,
  };
}

/** Whether `hostname` is a loopback address: 127.0.0.0/8, ::1 or localhost (RFC 6761 §6.3). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** A host entry covers a resource URI at exactly its host and port, over https or loopback http. */
function hostCoversUri(entry: HostPort, uri: ResourceUri): boolean {
  if (uri.scheme === 'http:' && !isLoopbackHost(uri.hostname)) return false;
  if (entry.hostname !== uri.hostname) return false;
  return entry.port === undefined ? !uri.explicitPort : entry.port === uri.port;
}

/**
 * Whether the `domains` entry `entry` covers `target` (a resource URI, a host, or any other
 * target name): the rule of docs/protocol.md §Where authority applies. Total and fail-closed:
 * anything it cannot place is covered only by an identical entry, and a resource URI with
 * userinfo or a fragment by nothing.
 */
export function domainCovers(entry: string, target: string): boolean {
  if (HTTP_URI.test(target)) {
    const uri = parseResourceUri(target);
    if (uri === undefined) return false;
    if (HTTP_URI.test(entry)) return parseResourceUri(entry)?.href === uri.href;
    const host = parseHostEntry(entry);
    return host !== undefined && hostCoversUri(host, uri);
  }
  if (entry === target) return true;
  const a = parseHostEntry(entry);
  const b = a === undefined ? undefined : parseHostEntry(target);
  return a !== undefined && b !== undefined && a.hostname === b.hostname && a.port === b.port;
}

/** Whether `target` is covered by one of `domains`; no list (undefined) means no limit. */
export function domainsCover(domains: readonly string[] | undefined, target: string): boolean {
  return domains === undefined || domains.some((entry) => domainCovers(entry, target));
}

/** The entries of `child` no entry of `parent` covers (a delegation must leave none: DOMAIN_ESCALATION). */
export function uncoveredDomains(child: readonly string[], parent: readonly string[]): string[] {
  return child.filter((entry) => !domainsCover(parent, entry));
}

/** The rule in one sentence, for people entering domains (the console, the CLI's help). */
export const DOMAIN_RULE_SUMMARY =
  'A host name (with its port, if not the default) covers every https URI at exactly that host and port — ' +
  'http only on localhost, 127.0.0.0/8 or ::1 — and no subdomain; a full URI covers only itself.';
