// The fetch policy shared by did:web, status lists and the issuer client: which hosts count as
// loopback or private, in the spellings WHATWG URL leaves after normalizing.
import { describe, expect, it } from 'vitest';
import { checkUrlPolicy, classifyHost } from '../../../wallet/net/url-policy.ts';

const host = (url: string) => classifyHost(new URL(url).hostname);
const refused = (url: string) => () => checkUrlPolicy(url, {}, (message) => new Error(message));

describe('classifyHost', () => {
  it('sees through a trailing dot, IPv4-compatible IPv6 and the NAT64 prefix', () => {
    expect(host('https://localhost./')).toBe('loopback');
    expect(host('https://api.localhost./')).toBe('loopback');
    expect(host('https://10.0.0.1./')).toBe('private');
    expect(host('https://[::127.0.0.1]/')).toBe('loopback'); // serialized [::7f00:1]
    expect(host('https://[::10.0.0.1]/')).toBe('private');
    expect(host('https://[64:ff9b::10.0.0.1]/')).toBe('private');
    expect(host('https://[64:ff9b::169.254.169.254]/')).toBe('private');
    expect(host('https://[64:ff9b::8.8.8.8]/')).toBe('public');
    expect(host('https://example.com./')).toBe('public');
  });

  it('judges every IPv6 form that embeds or routes to an IPv4 address by that address, and refuses special ranges', () => {
    const cases: Array<[string, 'public' | 'private' | 'loopback']> = [
      ['[::1]', 'loopback'],
      ['[::]', 'private'],
      ['[::2]', 'private'],
      ['[::ffff:127.0.0.1]', 'loopback'],
      ['[::ffff:8.8.8.8]', 'public'],
      ['[::ffff:0:127.0.0.1]', 'loopback'], // IPv4-translated (RFC 6145)
      ['[::ffff:0:10.0.0.1]', 'private'],
      ['[::ffff:0:8.8.8.8]', 'public'],
      ['[2002:7f00:1::]', 'loopback'], // 6to4 of 127.0.0.1 (RFC 3056)
      ['[2002:a00:1::5]', 'private'],
      ['[2002:808:808::1]', 'public'],
      ['[64:ff9b:1::a00:1]', 'private'], // local-use NAT64 (RFC 8215)
      ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'private'], // Teredo (RFC 4380)
      ['[2001:db8::1]', 'public'],
      ['[fec0::1]', 'private'], // site-local
      ['[fe80::1]', 'private'],
      ['[fd00::1]', 'private'],
      ['[ff02::1]', 'private'],
      ['[100::1]', 'private'], // discard-only (RFC 6666)
      ['[100:1::1]', 'public'],
      ['[2606:4700::1111]', 'public'],
      ['198.18.0.1', 'private'], // benchmarking (RFC 2544)
      ['198.19.255.255', 'private'],
      ['198.20.0.1', 'public'],
      ['192.0.0.8', 'private'], // IETF protocol assignments (RFC 6890)
      ['192.0.2.1', 'public'],
    ];
    for (const [literal, expected] of cases) expect(host(`https://${literal}/`), literal).toBe(expected);
  });

  it('names the setting that admits a refused host: both ways in for loopback, allowPrivateNetwork for the rest', () => {
    const message = (url: string, policy = {}) => {
      try {
        checkUrlPolicy(url, policy, (m) => new Error(m));
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(message('https://localhost:8443/x')).toBe(
      'a loopback host is refused (allowHttpLoopback admits it over http, allowPrivateNetwork over https)',
    );
    expect(message('http://127.0.0.1:8080/x')).toBe(
      'http: is refused: https only (http to loopback needs allowHttpLoopback)',
    );
    expect(message('https://10.0.0.1/x')).toBe('a private host is refused (needs allowPrivateNetwork)');
    expect(message('http://127.0.0.1:8080/x', { allowHttpLoopback: true })).toBe('accepted');
  });

  it('and checkUrlPolicy refuses them unless private networks are allowed', () => {
    for (const url of ['https://localhost./x', 'https://[::127.0.0.1]/x', 'https://[64:ff9b::a00:1]/x']) {
      expect(refused(url), url).toThrow(/host is refused/);
      expect(checkUrlPolicy(url, { allowPrivateNetwork: true }, (m) => new Error(m)).href).toBe(new URL(url).href);
    }
  });
});
