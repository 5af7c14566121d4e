// The fetch policy shared by did:web, status lists and the issuer client: which hosts count as
// loopback or private, in the spellings WHATWG URL leaves after normalizing.
import { describe, expect, it } from 'vitest';
import { checkUrlPolicy, classifyHost } from '../../wallet/net/url-policy.ts';

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

  it('and checkUrlPolicy refuses them unless private networks are allowed', () => {
    for (const url of ['https://localhost./x', 'https://[::127.0.0.1]/x', 'https://[64:ff9b::a00:1]/x']) {
      expect(refused(url), url).toThrow(/host is refused/);
      expect(checkUrlPolicy(url, { allowPrivateNetwork: true }, (m) => new Error(m)).href).toBe(new URL(url).href);
    }
  });
});
