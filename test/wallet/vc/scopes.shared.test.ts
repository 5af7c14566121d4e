import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_SCOPE_LENGTH,
  MAX_SCOPES,
  assertScope,
  covers,
  narrow,
  normalizeScopes,
  parseScope,
  parseScopes,
  uncovered,
  within,
} from '../../../wallet/vc/scopes.ts';

const invalidScope = expect.objectContaining({ name: 'ScopeError', code: 'INVALID_SCOPE' });

// A small segment pool, with near-misses of each other, so random scopes often share prefixes.
const segment = fc.constantFrom(
  'files',
  'file',
  'filesystem',
  'read',
  'write',
  'public',
  'a',
  'b',
  'x.y',
  'v-1',
  'a_b',
  '0',
);
const scope = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join(':'));
const scopeSet = fc.array(scope, { maxLength: 5 });

/** Each scope is a member of `parents` extended by 0..2 segments: a set within `parents`. */
function narrowerThan(parents: string[]): fc.Arbitrary<string[]> {
  if (parents.length === 0) return fc.constant([]);
  const child = fc
    .tuple(fc.constantFrom(...parents), fc.array(segment, { maxLength: 2 }))
    .map(([parent, extra]) => [parent, ...extra].join(':'));
  return fc.array(child, { maxLength: 5 });
}

describe('scope grammar', () => {
  it('accepts segment(:segment)* over [a-z0-9._-]', () => {
    for (const ok of ['files', 'files:read', 'files:read:public', 'a.b_c-d:0', '-', '...', 'v2:x']) {
      expect(() => assertScope(ok)).not.toThrow();
    }
    expect(parseScope('files:read:public')).toEqual(['files', 'read', 'public']);
  });

  it('rejects everything else with INVALID_SCOPE', () => {
    const bad = [
      '',
      ':',
      'files:',
      ':files',
      'files::read',
      'FILES',
      'Files:read',
      'files read',
      ' files',
      'files\n',
      'files\t',
      '*',
      'files:*',
      'files*',
      'files/read',
      'files,read',
      'files;read',
      'files\u0000',
      'f\u0456les', // Cyrillic і
      '\ufb01les', // ﬁ ligature
      'ｆｉｌｅｓ', // fullwidth
      'files\u200b', // zero-width space
      'file\u0301s', // combining accent
      'x'.repeat(MAX_SCOPE_LENGTH + 1),
    ];
    for (const scope of bad) expect(() => assertScope(scope), JSON.stringify(scope)).toThrow(invalidScope);
    for (const notString of [undefined, null, 1, ['files'], { toString: () => 'files' }]) {
      expect(() => assertScope(notString)).toThrow(invalidScope);
    }
    expect(() => assertScope('x'.repeat(MAX_SCOPE_LENGTH))).not.toThrow();
  });

  it('parses scope lists from documents and copies them', () => {
    const doc = ['files:read', 'mail'];
    const parsed = parseScopes(doc);
    expect(parsed).toEqual(doc);
    doc[0] = 'root';
    expect(parsed[0]).toBe('files:read');
    expect(() => parseScopes('files')).toThrow(invalidScope);
    expect(() => parseScopes(['files', 'FILES'])).toThrow(invalidScope);
    expect(() => parseScopes(Array.from({ length: MAX_SCOPES + 1 }, (_, i) => `s${i}`))).toThrow(invalidScope);
  });

  it('fails closed: every relation throws on an invalid scope instead of skipping it', () => {
    expect(() => covers('files', 'Files:read')).toThrow(invalidScope);
    expect(() => covers('files:', 'files:read')).toThrow(invalidScope);
    expect(() => within(['files:read'], ['*'])).toThrow(invalidScope);
    expect(() => within(['*'], ['files'])).toThrow(invalidScope);
    expect(() => narrow(['files'], ['files::read'])).toThrow(invalidScope);
    expect(() => uncovered(['FILES'], ['files'])).toThrow(invalidScope);
    expect(() => normalizeScopes(['files', ''])).toThrow(invalidScope);
    expect(() => within('files' as unknown as string[], ['files'])).toThrow(invalidScope);
  });
});

describe('covers', () => {
  it('is a segment-wise prefix, never a string prefix', () => {
    expect(covers('files', 'files')).toBe(true);
    expect(covers('files', 'files:read')).toBe(true);
    expect(covers('files', 'files:read:public')).toBe(true);
    expect(covers('files:read', 'files:read:public')).toBe(true);
    expect(covers('files', 'filesystem')).toBe(false);
    expect(covers('files', 'filesystem:read')).toBe(false);
    expect(covers('files', 'file')).toBe(false);
    expect(covers('file', 'files')).toBe(false);
    expect(covers('files:read', 'files')).toBe(false);
    expect(covers('files:read', 'files:reader')).toBe(false);
    expect(covers('files:read', 'files:write')).toBe(false);
    expect(covers('a.b', 'a.b.c')).toBe(false); // "." is an ordinary character, not a separator
  });

  it('is a partial order', () => {
    fc.assert(
      fc.property(scope, scope, scope, (a, b, c) => {
        expect(covers(a, a)).toBe(true);
        if (covers(a, b) && covers(b, a)) expect(a).toBe(b);
        if (covers(a, b) && covers(b, c)) expect(covers(a, c)).toBe(true);
      }),
    );
  });

  it('never grants by string prefix: appending characters without a ":" never stays covered', () => {
    const tail = fc.stringMatching(/^[a-z0-9._-]{1,6}$/);
    fc.assert(
      fc.property(scope, tail, (parent, extra) => {
        expect(covers(parent, parent + extra)).toBe(false);
        expect(covers(parent, `${parent}:${extra}`)).toBe(true);
      }),
    );
  });
});

describe('within and uncovered', () => {
  it('holds when every scope is covered by some scope of the bound', () => {
    expect(within([], [])).toBe(true);
    expect(within([], ['files'])).toBe(true);
    expect(within(['files:read'], [])).toBe(false);
    expect(within(['files:read', 'files:write:public'], ['files'])).toBe(true);
    expect(within(['files:read', 'mail:send'], ['files', 'mail'])).toBe(true);
    expect(within(['filesystem:read'], ['files'])).toBe(false);
    expect(within(['files'], ['files:read', 'files:write'])).toBe(false); // the parts are not the whole
  });

  it('names the scopes that escape the bound', () => {
    expect(uncovered(['files:read', 'files:write', 'mail', 'files:write'], ['files:read', 'mail:send'])).toEqual([
      'files:write',
      'mail',
    ]);
    expect(uncovered(['files:read'], ['files'])).toEqual([]);
  });

  it('is reflexive and transitive; uncovered is empty exactly when within holds', () => {
    fc.assert(
      fc.property(scopeSet, scopeSet, (a, b) => {
        expect(within(a, a)).toBe(true);
        expect(uncovered(a, b).length === 0).toBe(within(a, b));
      }),
    );
    const chain = scopeSet.chain((c) => narrowerThan(c).chain((b) => narrowerThan(b).map((a) => ({ a, b, c }))));
    fc.assert(
      fc.property(chain, ({ a, b, c }) => {
        expect(within(b, c)).toBe(true);
        expect(within(a, b)).toBe(true);
        expect(within(a, c)).toBe(true);
      }),
    );
    // Transitivity on unconstrained triples too (the premise holds less often, but is checked when it does).
    fc.assert(
      fc.property(scopeSet, scopeSet, scopeSet, (a, b, c) => {
        if (within(a, b) && within(b, c)) expect(within(a, c)).toBe(true);
      }),
    );
  });

  it('no sequence of delegations, each within the previous, yields a scope outside the root', () => {
    const delegation = fc.array(fc.nat(), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(scopeSet, delegation, fc.array(segment, { maxLength: 3 }), (root, seeds, extras) => {
        let current = root;
        for (const seed of seeds) {
          // Each step keeps some of the previous scopes, possibly made more specific.
          current = current
            .filter((_, i) => (seed >> i) % 2 === 0)
            .map((s, i) => (i < extras.length ? `${s}:${extras.slice(0, i + 1).join(':')}` : s));
          expect(within(current, root)).toBe(true);
          for (const s of current) expect(root.some((r) => covers(r, s))).toBe(true);
        }
      }),
    );
  });

  it('a delegation that adds any scope not covered by its parent is detected', () => {
    fc.assert(
      fc.property(scopeSet, scope, (parent, extra) => {
        const child = [...parent, extra];
        expect(within(child, parent)).toBe(parent.some((p) => covers(p, extra)));
      }),
    );
    expect(within(['filesystem:read'], ['files'])).toBe(false);
    expect(uncovered(['files:read', 'filesystem'], ['files'])).toEqual(['filesystem']);
  });
});

describe('narrow and normalizeScopes', () => {
  it('keeps the more specific scope of each comparable pair, minimal and sorted', () => {
    expect(narrow(['files'], ['files:read', 'mail'])).toEqual(['files:read']);
    expect(narrow(['files:read', 'mail'], ['files'])).toEqual(['files:read']);
    expect(narrow(['files', 'mail'], ['files', 'files:read', 'mail:send', 'calendar'])).toEqual(['files', 'mail:send']);
    expect(narrow(['files'], ['filesystem'])).toEqual([]);
    expect(narrow([], ['files'])).toEqual([]);
    expect(normalizeScopes(['mail', 'files:read', 'files', 'files', 'mail:send'])).toEqual(['files', 'mail']);
  });

  it('is within both arguments, commutative, and the greatest lower bound', () => {
    fc.assert(
      fc.property(scopeSet, scopeSet, scope, (a, b, probe) => {
        const n = narrow(a, b);
        expect(within(n, a)).toBe(true);
        expect(within(n, b)).toBe(true);
        expect(narrow(b, a)).toEqual(n);
        expect(normalizeScopes(n)).toEqual(n);
        const inBoth = a.some((x) => covers(x, probe)) && b.some((y) => covers(y, probe));
        expect(n.some((x) => covers(x, probe))).toBe(inBoth);
      }),
    );
  });

  it('folding narrow over a chain and its grants never exceeds any link', () => {
    fc.assert(
      fc.property(fc.array(scopeSet, { minLength: 1, maxLength: 5 }), (links) => {
        const effective = links.reduce((acc, link) => narrow(acc, link));
        for (const link of links) expect(within(effective, link)).toBe(true);
      }),
    );
  });

  it('computes the effective scopes of the chain example in docs/scopes.md', () => {
    const chain = [['files', 'mail'], ['files:read', 'mail:send'], ['files:read:public']];
    const grants = [['files', 'calendar']];
    for (let i = 1; i < chain.length; i++) expect(within(chain[i]!, chain[i - 1]!)).toBe(true);
    const effective = [...chain, ...grants].reduce((acc, bound) => narrow(acc, bound));
    expect(effective).toEqual(['files:read:public']);
    expect(within(['files:read:public:report.pdf'], effective)).toBe(true);
    expect(within(['files:read'], effective)).toBe(false);
    expect(within(['mail:send'], effective)).toBe(false);
  });

  it('normalizeScopes keeps the same authority', () => {
    fc.assert(
      fc.property(scopeSet, (a) => {
        const n = normalizeScopes(a);
        expect(within(a, n)).toBe(true);
        expect(within(n, a)).toBe(true);
        expect(new Set(n).size).toBe(n.length);
      }),
    );
  });
});
