import { describe, expect, it } from 'vitest';
import {
  domainCovers,
  domainsCover,
  isLoopbackHost,
  parseHostEntry,
  uncoveredDomains,
} from '../../../wallet/vc/index.ts';

// docs/protocol.md §Where authority applies: [entry, target, covered].
const CASES: [string, string, boolean][] = [
  // A host entry covers the https resource URIs at exactly that host, default port.
  ['files.example.com', 'https://files.example.com/mcp', true],
  ['files.example.com', 'https://files.example.com', true],
  ['files.example.com', 'https://files.example.com/', true],
  ['files.example.com', 'https://files.example.com/a/b?x=1', true],
  ['files.example.com', 'https://files.example.com:443/mcp', true],
  ['files.example.com', 'HTTPS://FILES.EXAMPLE.COM/mcp', true],
  ['Files.Example.COM', 'https://files.example.com/mcp', true],
  // ... and the same host entry, compared as a host.
  ['files.example.com', 'files.example.com', true],
  ['FILES.example.com', 'files.example.com', true],
  ['files.example.com', 'files.example.com:8443', false],
  // No subdomain, no parent domain, no look-alike.
  ['files.example.com', 'https://sub.files.example.com/mcp', false],
  ['files.example.com', 'https://example.com/mcp', false],
  ['files.example.com', 'https://files.example.com.evil.test/mcp', false],
  ['files.example.com', 'https://files.example.com./mcp', false],
  ['files.example.com', 'sub.files.example.com', false],
  // Ports: an entry without one covers only the scheme's default; with one, exactly it.
  ['files.example.com', 'https://files.example.com:8443/mcp', false],
  ['files.example.com:8443', 'https://files.example.com:8443/mcp', true],
  ['files.example.com:8443', 'https://files.example.com/mcp', false],
  ['files.example.com:443', 'https://files.example.com/mcp', true],
  ['files.example.com:08443', 'https://files.example.com:8443/mcp', true],
  ['files.example.com:0', 'https://files.example.com/mcp', false],
  ['files.example.com:65536', 'https://files.example.com/mcp', false],
  // http only on a loopback address.
  ['files.example.com', 'http://files.example.com/mcp', false],
  ['files.example.com:80', 'http://files.example.com/mcp', false],
  ['localhost', 'http://localhost/mcp', true],
  ['localhost:3000', 'http://localhost:3000/mcp', true],
  ['localhost:3000', 'https://localhost:3000/mcp', true],
  ['localhost:3000', 'http://localhost:3001/mcp', false],
  ['localhost', 'http://localhost:3000/mcp', false],
  ['127.0.0.1:8080', 'http://127.0.0.1:8080/mcp', true],
  ['127.9.8.7', 'http://127.9.8.7/mcp', true],
  ['127.0.0.1:8080', 'http://localhost:8080/mcp', false],
  ['[::1]:8080', 'http://[::1]:8080/mcp', true],
  ['[::1]', 'http://[::1]/mcp', true],
  ['[0:0:0:0:0:0:0:1]:8080', 'http://[::1]:8080/mcp', true],
  ['[::2]', 'http://[::2]/mcp', false],
  ['10.0.0.1', 'http://10.0.0.1/mcp', false],
  ['10.0.0.1', 'https://10.0.0.1/mcp', true],
  ['sub.localhost', 'http://sub.localhost/mcp', false],
  // IDNs compare by their A-label, whichever form either side uses.
  ['bücher.example', 'https://xn--bcher-kva.example/mcp', true],
  ['xn--bcher-kva.example', 'https://BÜCHER.example/mcp', true],
  ['xn--bcher-kva.example', 'bücher.example', true],
  ['bucher.example', 'https://bücher.example/mcp', false],
  // userinfo, fragments and parser-confusing characters: covered by nothing.
  ['files.example.com', 'https://user@files.example.com/mcp', false],
  ['files.example.com', 'https://user:pw@files.example.com/mcp', false],
  ['files.example.com', 'https://@files.example.com/mcp', false],
  ['files.example.com', 'https://evil.test@files.example.com/mcp', false],
  ['files.example.com', 'https://files.example.com/mcp#x', false],
  ['files.example.com', 'https://files.example.com/mcp#', false],
  ['https://files.example.com/mcp#x', 'https://files.example.com/mcp#x', false],
  ['https://user@files.example.com/mcp', 'https://user@files.example.com/mcp', false],
  ['files.example.com', 'https://files.example.com\\@evil.test/mcp', false],
  ['files.example.com', 'https://files.example.com\t/mcp', false],
  ['user@files.example.com', 'https://files.example.com/mcp', false],
  ['files.example.com/mcp', 'https://files.example.com/mcp', false],
  // Other schemes are not resource URIs a host entry covers.
  ['files.example.com', 'wss://files.example.com/mcp', false],
  ['files.example.com', 'ftp://files.example.com/', false],
  // A URI entry covers itself (its normal form), not a path under it, not its host.
  ['https://files.example.com/mcp', 'https://files.example.com/mcp', true],
  ['https://FILES.example.com:443/mcp', 'https://files.example.com/mcp', true],
  ['https://files.example.com', 'https://files.example.com/', true],
  ['https://files.example.com/mcp', 'https://files.example.com/mcp/tools', false],
  ['https://files.example.com/mcp', 'https://files.example.com/mcp/', false],
  ['https://files.example.com/mcp', 'https://files.example.com/MCP', false],
  ['https://files.example.com/mcp', 'https://files.example.com/mcp?x=1', false],
  ['https://files.example.com/mcp', 'files.example.com', false],
  ['https://files.example.com/', 'https://files.example.com/mcp', false],
  ['http://files.example.com/mcp', 'http://files.example.com/mcp', true],
  ['http://files.example.com/mcp', 'https://files.example.com/mcp', false],
  // Anything else covers only itself, exactly.
  ['did:web:files.example.com', 'did:web:files.example.com', true],
  ['did:web:files.example.com', 'https://files.example.com/mcp', false],
  ['did:web:files.example.com', 'did:web:FILES.example.com', false],
  ['files-service', 'files-service', true],
  ['files.example.com', '', false],
  ['', 'https://files.example.com/', false],
];

describe('domainCovers: where authority applies (docs/protocol.md)', () => {
  it.each(CASES)('%j covers %j: %s', (entry, target, covered) => {
    expect(domainCovers(entry, target)).toBe(covered);
  });

  it('domainsCover: any entry covers; no list is no limit; an empty list covers nothing', () => {
    expect(domainsCover(['mail.example.com', 'files.example.com'], 'https://files.example.com/mcp')).toBe(true);
    expect(domainsCover(['mail.example.com'], 'https://files.example.com/mcp')).toBe(false);
    expect(domainsCover(undefined, 'https://anything.example/')).toBe(true);
    expect(domainsCover([], 'https://files.example.com/mcp')).toBe(false);
  });

  it('uncoveredDomains: a child entry must be covered by a parent entry (narrowing)', () => {
    expect(uncoveredDomains(['https://files.example.com/mcp'], ['files.example.com'])).toEqual([]);
    expect(uncoveredDomains(['files.example.com'], ['https://files.example.com/mcp'])).toEqual(['files.example.com']);
    expect(uncoveredDomains(['files.example.com', 'sub.files.example.com'], ['FILES.example.com'])).toEqual([
      'sub.files.example.com',
    ]);
  });

  it('parseHostEntry normalises the host and the port, and refuses what is not a host entry', () => {
    expect(parseHostEntry('Files.Example.com')).toEqual({ hostname: 'files.example.com', port: undefined });
    expect(parseHostEntry('bücher.example:0443')).toEqual({ hostname: 'xn--bcher-kva.example', port: '443' });
    expect(parseHostEntry('[::1]:3000')).toEqual({ hostname: '[::1]', port: '3000' });
    for (const bad of [
      '',
      '::1',
      'a:b',
      'host:',
      'host:x',
      'user@host',
      'host/path',
      'https://host',
      'did:web:x',
      'a b',
    ])
      expect(parseHostEntry(bad), bad).toBeUndefined();
  });

  it('isLoopbackHost: 127.0.0.0/8, ::1 and localhost only', () => {
    for (const host of ['localhost', '127.0.0.1', '127.255.255.254', '[::1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '128.0.0.1', '[::2]', 'localhost.example', 'sub.localhost'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
