// wallet/crypto/base64url.ts replaced multiformats' base64url codec: it must be the same codec,
// byte for byte and refusal for refusal.
import { base64url as multiformats } from 'multiformats/bases/base64';
import { describe, expect, it } from 'vitest';
import {
  base64ToBytes,
  base64urlToBytes,
  base64urlToBytesLenient,
  bytesToBase64,
  bytesToBase64url,
} from '../../../wallet/crypto/base64url.ts';

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return bytes;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. é\u{1F600}';
function randomText(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += [...ALPHABET][Math.floor(Math.random() * [...ALPHABET].length)];
  return text;
}

function multiformatsDecode(text: string): Uint8Array | 'error' {
  try {
    return multiformats.decode(`u${text}`);
  } catch {
    return 'error';
  }
}

function lenientDecode(text: string): Uint8Array | 'error' {
  try {
    return base64urlToBytesLenient(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return 'error';
  }
}

describe('base64url', () => {
  it('encodes every byte string as multiformats does (without its "u")', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = randomBytes(length);
      expect(bytesToBase64url(bytes)).toBe(multiformats.encode(bytes).slice(1));
    }
  });

  it('decodes, or refuses, every text as multiformats does', () => {
    const samples = ['', 'A', 'AA', 'AAA', 'AAAA', 'AB', 'AQ', 'AQ==', 'AQ=', '=', 'A=A', 'YQ', 'YR'];
    for (let i = 0; i < 500; i++) samples.push(randomText(i % 12));
    for (let i = 0; i < 200; i++) samples.push(bytesToBase64url(randomBytes(i % 40)));
    for (const text of samples) expect(lenientDecode(text), text).toEqual(multiformatsDecode(text));
  });

  it('accepts only the canonical spelling in the strict decoder', () => {
    for (let length = 0; length < 40; length++) {
      const bytes = randomBytes(length);
      expect(base64urlToBytes(bytesToBase64url(bytes))).toEqual(bytes);
    }
    for (const text of ['AQ==', 'AR', 'A', 'A+', 'A/', ' AQ', 'AQ\n'])
      expect(base64urlToBytes(text), text).toBeUndefined();
    expect(base64urlToBytes(42)).toBeUndefined();
  });
});

describe('base64 (RFC 4648 §4, padded): the byte sequences of HTTP structured fields', () => {
  it('is btoa/atob over random bytes, and refuses any other spelling', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = randomBytes(length);
      const text = btoa(String.fromCharCode(...bytes));
      expect(bytesToBase64(bytes)).toBe(text);
      expect(base64ToBytes(text)).toEqual(bytes);
    }
    for (const text of ['AQ', 'AR==', 'A===', 'AQ=', 'A-8=', 'A_8=', ' AQ==', 'AQ==\n', 'AQ==AQ=='])
      expect(base64ToBytes(text), text).toBeUndefined();
    expect(base64ToBytes(42)).toBeUndefined();
  });
});
