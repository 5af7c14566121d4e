import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import canonicalize from 'canonicalize';
import unsigned from '@vectors/w3c-vc-di-eddsa/unsigned.json';
import unsignedText from '@vectors/w3c-vc-di-eddsa/unsigned.json?raw';
import canonDocJCS from '@vectors/w3c-vc-di-eddsa/eddsa-jcs-2022/canonDocJCS.txt?raw';
import { utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import { canonicalSnapshot, createCanonicalMemo, recallCanonical } from '../../../wallet/crypto/canonical-memo.ts';
import { canonicalBytes, canonicalizeJson } from '../../../wallet/crypto/jcs.ts';
import { parseJson, parseUnambiguousJson } from '../../../wallet/crypto/json-parse.ts';
import { assertSafeJson } from '../../../wallet/crypto/json-safe.ts';
import { DEFAULT_JSON_LIMITS, JsonError, type JsonErrorCode } from '../../../wallet/crypto/json-value.ts';

const code = (c: JsonErrorCode) => expect.objectContaining({ name: 'JsonError', code: c });

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);
function hasUnsafeKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasUnsafeKey);
  if (value !== null && typeof value === 'object') {
    return Object.keys(value).some((k) => UNSAFE.has(k) || hasUnsafeKey((value as Record<string, unknown>)[k]));
  }
  return false;
}

describe('JCS canonicalization (RFC 8785)', () => {
  it('reproduces the W3C eddsa-jcs-2022 canonical credential byte for byte', () => {
    expect(canonicalizeJson(unsigned)).toBe(canonDocJCS.trimEnd());
    expect(canonicalBytes(unsigned)).toEqual(utf8ToBytes(canonDocJCS.trimEnd()));
    // The same bytes whether the credential comes from text or from a module import.
    expect(canonicalizeJson(parseJson(unsignedText))).toBe(canonDocJCS.trimEnd());
  });

  it('serializes numbers as ECMAScript does (RFC 8785 §3.2.2.3, Appendix B)', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [-0, '0'],
      [1, '1'],
      [-1.5, '-1.5'],
      [1e21, '1e+21'],
      [1e20, '100000000000000000000'],
      [0.000001, '0.000001'],
      [1e-7, '1e-7'],
      [333333333.3333333, '333333333.3333333'],
      [9007199254740992, '9007199254740992'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [4.5, '4.5'],
      [2e-3, '0.002'],
      [0.1 + 0.2, '0.30000000000000004'],
    ];
    for (const [n, text] of cases) expect(canonicalizeJson(n)).toBe(text);
  });

  it('escapes strings minimally (RFC 8785 §3.2.2.2)', () => {
    // RFC 8785 §3.2.4 example string: only ", \ and U+0000–U+001F are escaped, with lowercase hex.
    expect(canonicalizeJson('€$\u000f\nA\'B"\\\\"/')).toBe('"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"');
    expect(canonicalizeJson('\b\t\n\f\r\u0000\u001f')).toBe('"\\b\\t\\n\\f\\r\\u0000\\u001f"');
    expect(canonicalizeJson('\u2028\u2029\u007f😀')).toBe('"\u2028\u2029\u007f😀"');
  });

  it('sorts members by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const value = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // RFC 8785 §3.2.3 example. (Object.keys cannot show this order: it lists "1" first.)
    expect(canonicalizeJson(value)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    // Nested objects sort too, arrays keep their order, literals are exact.
    expect(canonicalizeJson({ b: [3, { z: null, a: true }], a: false })).toBe(
      '{"a":false,"b":[3,{"a":true,"z":null}]}',
    );
  });

  it('matches the canonicalize package on arbitrary JSON, and is idempotent', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6, stringUnit: 'grapheme' }), (value) => {
        if (hasUnsafeKey(value)) {
          expect(() => canonicalizeJson(value)).toThrow(code('JSON_UNSAFE_KEY'));
          return;
        }
        const text = canonicalizeJson(value);
        expect(text).toBe(canonicalize(value));
        expect(canonicalizeJson(parseJson(text, { maxBytes: Number.MAX_SAFE_INTEGER }))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('escapes exactly like the canonicalize package in keys and values, fast path or not', () => {
    const strings = [
      'plain',
      '',
      'quote"inside',
      'back\\slash',
      'tab\tnew\nline',
      '\u0000\u001f\u007f',
      'é€😀',
      'a\u2028b',
      'did:key:z6Mk#z6Mk',
      '"',
      '\\',
    ];
    for (const a of strings) {
      for (const b of strings) {
        const value = { [a]: b, list: [a, { [b]: a }] };
        expect(canonicalizeJson(value)).toBe(canonicalize(value));
      }
    }
  });

  it('quotes member names the same however many names it has seen, and keeps refusing bad ones', () => {
    const many = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}${'x'.repeat(i % 90)}`, i]));
    for (let round = 0; round < 2; round++) {
      expect(canonicalizeJson(many, { maxBytes: 1 << 20 })).toBe(canonicalize(many));
      expect(() => canonicalizeJson(JSON.parse('{"a":1,"__proto__":2}'))).toThrow(code('JSON_UNSAFE_KEY'));
      expect(() => canonicalizeJson({ ['a\ud800']: 1 })).toThrow(code('JSON_LONE_SURROGATE'));
      expect(canonicalizeJson({ 'q"': 1, 'b\\': 2, '\n': 3 })).toBe(canonicalize({ 'q"': 1, 'b\\': 2, '\n': 3 }));
    }
  });

  it('gives the same text with a memo, for the value and for new objects built from its parts', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ maxDepth: 3 }), (inner, extra) => {
        if (hasUnsafeKey(inner) || hasUnsafeKey(extra)) return;
        const outer = { a: inner, b: [inner, extra], c: { d: inner } };
        const memo = createCanonicalMemo();
        expect(canonicalizeJson(outer, undefined, memo)).toBe(canonicalize(outer));
        // Wrappers and copies made of remembered parts, as a verifier builds them.
        const { b: _b, ...withoutB } = outer;
        expect(canonicalizeJson(withoutB, undefined, memo)).toBe(canonicalize(withoutB));
        expect(canonicalizeJson([outer.c, extra], undefined, memo)).toBe(canonicalize([outer.c, extra]));
        expect(canonicalizeJson(inner, undefined, memo)).toBe(canonicalize(inner));
      }),
      { numRuns: 200 },
    );
  });

  it('applies the depth and size limits to remembered parts too', () => {
    const deep = nested(30);
    const memo = createCanonicalMemo();
    expect(() => canonicalizeJson(deep, undefined, memo)).not.toThrow();
    // Written at depth 0 with room for 30 levels; placed 3 levels down it exceeds 32.
    expect(() => canonicalizeJson([[[deep]]], undefined, memo)).toThrow(code('JSON_TOO_DEEP'));
    expect(() => canonicalizeJson([[deep]], undefined, memo)).not.toThrow();
    expect(() => canonicalizeJson(deep, { maxDepth: 29 }, memo)).toThrow(code('JSON_TOO_DEEP'));
    const big = { text: 'x'.repeat(40_000) };
    canonicalizeJson(big, undefined, memo);
    expect(() => canonicalizeJson([big, big], undefined, memo)).toThrow(code('JSON_TOO_LARGE'));
    expect(() => canonicalizeJson([big], { maxBytes: 1000 }, memo)).toThrow(code('JSON_TOO_LARGE'));
  });

  it('stops early on shared references that would expand beyond the size limit', () => {
    // 2^26 nulls (over 300 MB) if written out, within the depth limit: the size budget, not
    // the input size, must stop it.
    let value: unknown = [null, null];
    for (let i = 0; i < 25; i++) value = [value, value];
    expect(() => canonicalizeJson(value)).toThrow(code('JSON_TOO_LARGE'));
    expect(() => canonicalizeJson(value, undefined, createCanonicalMemo())).toThrow(code('JSON_TOO_LARGE'));
    expect(() => assertSafeJson(value)).toThrow(code('JSON_TOO_LARGE'));
  });

  it('accepts null-prototype objects (what safe parsers build)', () => {
    const value = Object.assign(Object.create(null) as object, { b: 1, a: 2 });
    expect(canonicalizeJson(value)).toBe('{"a":2,"b":1}');
  });
});

describe('canonical snapshots (recallCanonical)', () => {
  const credential = { b: [1, 'two', { c: null, d: true }], a: { z: -0.5, y: 'text' }, e: 0 };
  const snapshot = canonicalSnapshot(canonicalizeJson(credential));

  it('recognizes the same JSON and puts its text in the memo, where containers reuse it', () => {
    const copy = JSON.parse(JSON.stringify(credential)) as typeof credential;
    copy.e = -0; // canonicalizes to "0" as well
    const memo = createCanonicalMemo();
    expect(recallCanonical(copy, snapshot, memo)).toBe(true);
    expect(canonicalizeJson({ wrapper: [copy] }, undefined, memo)).toBe(canonicalizeJson({ wrapper: [credential] }));
    expect(snapshot.height).toBe(3);
  });

  it('refuses anything that differs, and records nothing then', () => {
    const variants: unknown[] = [
      { ...credential, e: 1 },
      { ...credential, e: '0' },
      { ...credential, extra: 1 },
      { a: credential.a, b: credential.b },
      { ...credential, b: [1, 'two'] },
      { ...credential, b: [1, 'two', { c: null, d: 'true' }] },
      { ...credential, a: [credential.a] },
      { ...credential, b: { 0: 1, 1: 'two', 2: { c: null, d: true } } },
      Object.assign(Object.create({ inherited: true }) as object, credential),
      [credential],
      'text',
      null,
    ];
    for (const variant of variants) {
      const memo = createCanonicalMemo();
      expect(recallCanonical(variant, snapshot, memo), JSON.stringify(variant)).toBe(false);
      if (
        typeof variant === 'object' &&
        variant !== null &&
        !Array.isArray(variant) &&
        Object.getPrototypeOf(variant) === Object.prototype
      ) {
        // Nothing was recorded: canonicalizing the variant gives its own text, not the snapshot's.
        expect(canonicalizeJson(variant, undefined, memo)).not.toBe(snapshot.text);
      }
    }
  });

  it('agrees with canonicalization on arbitrary JSON: clones match, an extended copy does not', () => {
    const safeJson = fc
      .jsonValue({ maxDepth: 4 })
      .filter((v) => !hasUnsafeKey(v) && typeof v === 'object' && v !== null);
    fc.assert(
      fc.property(safeJson, (value) => {
        const snap = canonicalSnapshot(canonicalizeJson(value));
        const memo = createCanonicalMemo();
        const clone = JSON.parse(JSON.stringify(value)) as object;
        expect(recallCanonical(clone, snap, memo)).toBe(true);
        expect(canonicalizeJson([clone], undefined, memo)).toBe(`[${snap.text}]`);
        if (!Array.isArray(clone) && Object.hasOwn(clone, '~added')) return;
        const changed = Array.isArray(clone) ? [...(clone as unknown[]), 0] : { ...clone, '~added': 0 };
        expect(recallCanonical(changed, snap, createCanonicalMemo())).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('JSON boundary errors', () => {
  it('JSON_SYNTAX: unparsable text, without echoing it', () => {
    for (const parse of [parseJson, parseUnambiguousJson]) {
      for (const text of ['{', '', 'undefined', "{'a':1}", '[1,]', '{"a":1}x', 'NaN']) {
        expect(() => parse(text)).toThrow(code('JSON_SYNTAX'));
      }
      expect(() => parse('{"secret-token-123":')).toThrow(
        expect.not.objectContaining({ message: expect.stringContaining('secret') }),
      );
      expect(() => parse(42 as unknown as string)).toThrow(code('JSON_SYNTAX'));
    }
  });

  it('JSON_UNSAFE_KEY: __proto__, constructor, prototype at any depth, parsed or in memory', () => {
    for (const text of ['{"__proto__":{"admin":true}}', '{"a":[{"constructor":{}}]}', '{"x":{"y":{"prototype":1}}}']) {
      expect(() => parseJson(text)).toThrow(code('JSON_UNSAFE_KEY'));
      // JSON.parse makes "__proto__" an own property; the walk must still see it.
      expect(() => canonicalizeJson(JSON.parse(text))).toThrow(code('JSON_UNSAFE_KEY'));
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('JSON_DUPLICATE_NAME: one name twice in an object, however spelled; the same name in different objects is fine', () => {
    for (const parse of [parseJson, parseUnambiguousJson]) {
      for (const text of [
        '{"a":1,"a":2}',
        '{"a":1,"\\u0061":2}',
        '{"x":{"k":[],"k":[]}}',
        '[{"":1,"":2}]',
        '{"q\\"":1, "q\\"" :2}',
        '{"a":{"b":1},\n "a" : 3}',
      ]) {
        expect(() => parse(text), text).toThrow(code('JSON_DUPLICATE_NAME'));
      }
      for (const text of [
        '{"a":{"a":1},"b":[{"a":1},{"a":2}]}',
        '{"x":"\\":,","y":"a:b","z":{"\\u0061":1,"b":2}}',
        '[{"k":1},{"k":1}]',
      ]) {
        expect(() => parse(text), text).not.toThrow();
      }
    }
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1 }),
        fc.boolean(),
        (object, escaped) => {
          fc.pre(!hasUnsafeKey(object));
          const name = Object.keys(object)[0] as string;
          const spelled = escaped
            ? `"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(name.slice(1)).slice(1)}`
            : JSON.stringify(name);
          expect(() => parseJson(`{${spelled}:0,${JSON.stringify(object).slice(1)}`)).toThrow(
            code('JSON_DUPLICATE_NAME'),
          );
          expect(() => parseUnambiguousJson(`[{${spelled}:0,${JSON.stringify(object).slice(1)}]`)).toThrow(
            code('JSON_DUPLICATE_NAME'),
          );
          expect(() => parseJson(JSON.stringify({ wrapper: object }, null, 2))).not.toThrow();
        },
      ),
      { numRuns: 200 },
    );
  });

  it("parseUnambiguousJson refuses only what I-JSON refuses: the value's own rules are left to its consumers", () => {
    // Each of these is refused by parseJson for its value, and read as JSON.parse reads it here.
    for (const text of [
      '{"__proto__":{"admin":true}}',
      '[1e400]',
      `${'['.repeat(40)}${']'.repeat(40)}`,
      '"\\ud83d\\ude00"',
    ]) {
      expect(parseUnambiguousJson(text), text.slice(0, 30)).toEqual(JSON.parse(text));
    }
    // RFC 7493 §2.1: a lone surrogate half, in a string or a member name, at any depth.
    for (const text of [
      '"\\ud800"',
      '{"a\\udc00":1}',
      `${'['.repeat(1000)}"x\\ud800"${']'.repeat(1000)}`,
      '{"a":{"b":["\\udbff"]}}',
    ]) {
      expect(() => parseUnambiguousJson(text), text.slice(0, 30)).toThrow(code('JSON_LONE_SURROGATE'));
    }
    expect(() => parseUnambiguousJson(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).not.toThrow();
    // A repeated "__proto__" is still two members written and one parsed.
    expect(() => parseUnambiguousJson('{"__proto__":1,"__proto__":2}')).toThrow(code('JSON_DUPLICATE_NAME'));
    // Depth is no defence for a duplicate: the count walks any nesting without recursion.
    expect(() => parseUnambiguousJson(`${'['.repeat(100_000)}{"a":1,"a":2}${']'.repeat(100_000)}`)).toThrow(
      code('JSON_DUPLICATE_NAME'),
    );
  });

  it('JSON_NON_FINITE: NaN and ±Infinity, including 1e400 from text', () => {
    expect(() => parseJson('[1e400]')).toThrow(code('JSON_NON_FINITE'));
    expect(() => parseJson('{"a":-1e999}')).toThrow(code('JSON_NON_FINITE'));
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => canonicalizeJson({ a: [n] })).toThrow(code('JSON_NON_FINITE'));
    }
  });

  it('JSON_UNSUPPORTED_VALUE: values JSON cannot hold are refused, not dropped', () => {
    class Claim {
      a = 1;
    }
    const sparse: unknown[] = [1];
    sparse[2] = 3;
    const bad: unknown[] = [
      undefined,
      () => 1,
      10n,
      Symbol('s'),
      new Date(0),
      new Map(),
      new Claim(),
      new Uint8Array(2),
      sparse,
      { a: undefined },
      [undefined],
    ];
    for (const value of bad) {
      expect(() => canonicalizeJson(value)).toThrow(code('JSON_UNSUPPORTED_VALUE'));
      expect(() => canonicalizeJson({ nested: [value] })).toThrow(code('JSON_UNSUPPORTED_VALUE'));
    }
  });

  it('JSON_LONE_SURROGATE: in strings and keys, parsed or in memory', () => {
    expect(() => parseJson('"\\ud800"')).toThrow(code('JSON_LONE_SURROGATE'));
    expect(() => parseJson('{"\\udc00":1}')).toThrow(code('JSON_LONE_SURROGATE'));
    expect(() => canonicalizeJson(['ok', 'a\ud83d'])).toThrow(code('JSON_LONE_SURROGATE'));
    expect(() => canonicalizeJson({ ['\ude00x']: 1 })).toThrow(code('JSON_LONE_SURROGATE'));
    expect(parseJson('"\\ud83d\\ude00"')).toBe('😀');
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'), fc.string(), (a, half, b) => {
        expect(() => canonicalizeJson({ v: a + half + b })).toThrow(JsonError);
      }),
      { numRuns: 100 },
    );
  });

  it('JSON_TOO_DEEP: nesting beyond 32 by default, configurable', () => {
    expect(DEFAULT_JSON_LIMITS.maxDepth).toBe(32);
    expect(() => canonicalizeJson(nested(32))).not.toThrow();
    expect(() => canonicalizeJson(nested(33))).toThrow(code('JSON_TOO_DEEP'));
    expect(() => parseJson(`${'['.repeat(32)}${']'.repeat(32)}`)).not.toThrow();
    expect(() => parseJson(`${'['.repeat(33)}${']'.repeat(33)}`)).toThrow(code('JSON_TOO_DEEP'));
    expect(() => parseJson('[[1]]', { maxDepth: 1 })).toThrow(code('JSON_TOO_DEEP'));
    // Deep hostile input fails fast instead of overflowing the stack.
    expect(() => parseJson('['.repeat(20_000) + ']'.repeat(20_000))).toThrow(code('JSON_TOO_DEEP'));
  });

  it('JSON_TOO_LARGE: on the UTF-8 size of the text, or of the canonical form of a value', () => {
    expect(DEFAULT_JSON_LIMITS.maxBytes).toBe(65_536);
    const fits = JSON.stringify({ a: 'x'.repeat(65_536 - 8) });
    expect(utf8ToBytes(fits).length).toBe(65_536);
    expect(() => parseJson(fits)).not.toThrow();
    expect(() => parseJson(`${fits} `)).toThrow(code('JSON_TOO_LARGE'));
    // Counted in UTF-8 bytes, not UTF-16 units: 30 × 'é' is 30 units but 60 bytes.
    const accents = `"${'é'.repeat(30)}"`;
    expect(() => parseJson(accents, { maxBytes: 62 })).not.toThrow();
    expect(() => parseJson(accents, { maxBytes: 61 })).toThrow(code('JSON_TOO_LARGE'));
    expect(() => canonicalizeJson('é'.repeat(30), { maxBytes: 61 })).toThrow(code('JSON_TOO_LARGE'));
    expect(() => canonicalBytes('é'.repeat(30), { maxBytes: 61 })).toThrow(code('JSON_TOO_LARGE'));
    expect(canonicalBytes('é'.repeat(30), { maxBytes: 62 }).length).toBe(62);
    // Whitespace in the text does not count against a value: the canonical form is measured.
    expect(() => canonicalizeJson({ a: 'x'.repeat(100_000) })).toThrow(code('JSON_TOO_LARGE'));
    expect(() => assertSafeJson(['x'.repeat(100)], { maxBytes: 50 })).toThrow(code('JSON_TOO_LARGE'));
  });

  it('assertSafeJson narrows safe values and refuses unsafe ones', () => {
    const value: unknown = JSON.parse('{"a":[1,"b",null,true]}');
    assertSafeJson(value);
    expect(value).toEqual({ a: [1, 'b', null, true] });
    expect(() => assertSafeJson({ a: Number.NaN })).toThrow(code('JSON_NON_FINITE'));
  });

  it('rejects nonsensical limits', () => {
    expect(() => canonicalizeJson(1, { maxDepth: -1 })).toThrow(RangeError);
    expect(() => parseJson('1', { maxBytes: 1.5 })).toThrow(RangeError);
  });
});
