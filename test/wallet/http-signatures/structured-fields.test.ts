// The hand-written RFC 8941 parser (wallet/http-signatures/structured-fields.ts) against the
// `structured-headers` package, which http-message-signatures uses: on each input both accept
// or both refuse, and what both accept serialises to the same text.
import { describe, expect, it } from 'vitest';
import * as sh from 'structured-headers';
import {
  parseDictionary,
  parseList,
  serializeDictionary,
  serializeList,
  SfDecimal,
  SfToken,
} from '../../../wallet/http-signatures/structured-fields.ts';

const DICTIONARIES = [
  'sig1=("@method" "@authority" "@path");created=1618884473;keyid="test-key-ed25519"',
  'sig1=("@method" "signature-agent";key="agent1");created=1;expires=2;nonce="a\\"b\\\\c";tag="web-bot-auth"',
  'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
  'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:AAAA:',
  'a, b;x=?0, c=?1;y, d=tok/en:x, e=-12.5, f=0.001, g=999999999999999, h=-999999999999999',
  'a=()  ,   b=( 1   2 );p=1  ',
  'agent1="https://bots.example/.well-known/http-message-signatures-directory"',
  '  a=1,b=2\t,\tc=3',
  'a=1, a=2',
  'a=1;p=1;p=2',
  '*k=*t',
  '',
  // refused
  'A=1',
  'a=1,',
  'a=1 b=2',
  'a=(1 2',
  'a=(1 2)x',
  'a="unterminated',
  'a="bad\\escape"',
  'a=:not base64!:',
  'a=?2',
  'a=1234567890123456',
  'a=1234567890123.1',
  'a=1.1234',
  'a=1.',
  'a="é"',
  'a=(1,2)',
  ',a=1',
];

const LISTS = ['1, 2, (3 4);p', '"a";b=tok, :AAAA:, ?1', 'a, , b', '(a b', ''];

function mine(parse: () => unknown, serialize: (value: never) => string): string | undefined {
  try {
    return serialize(parse() as never);
  } catch {
    return undefined;
  }
}

describe('RFC 8941 parsing and serialising, held to structured-headers', () => {
  for (const input of DICTIONARIES)
    it(`dictionary ${JSON.stringify(input)}`, () => {
      const theirs = mine(() => sh.parseDictionary(input), sh.serializeDictionary);
      expect(mine(() => parseDictionary(input), serializeDictionary)).toBe(theirs);
    });

  for (const input of LISTS)
    it(`list ${JSON.stringify(input)}`, () => {
      const theirs = mine(() => sh.parseList(input), sh.serializeList);
      expect(mine(() => parseList(input), serializeList)).toBe(theirs);
    });

  it("refuses RFC 9651's dates and display strings, which structured-headers reads", () => {
    for (const input of ['a=@1659578233', 'a=%"display"']) {
      expect(() => sh.parseDictionary(input)).not.toThrow();
      expect(() => parseDictionary(input)).toThrow(/not an item/);
    }
  });

  it('keeps tokens, decimals and strings apart', () => {
    const parsed = parseDictionary('a=tok, b=1.0, c="tok", d=1');
    expect(parsed.get('a')).toEqual({ value: new SfToken('tok'), params: new Map() });
    expect(parsed.get('b')).toEqual({ value: new SfDecimal(1), params: new Map() });
    expect(serializeDictionary(parsed)).toBe('a=tok, b=1.0, c="tok", d=1');
  });
});
