/**
 * A build-time stand-in for `multiformats/bases/base64` in the service-worker bundle (aliased
 * in verifier-worker/vite.sw.config.ts). The wallet uses only its `base64url` multibase codec,
 * which pulls in multiformats' generic base machinery (codec classes, composition, base-x
 * glue): about 1 KB gzip of the worker's 40 KB budget. This is the same RFC 4648 §5 codec,
 * the same algorithm line for line (multiformats src/bases/base.ts `encode`/`decode`), so the
 * wallet behaves identically: 'u' prefix, no padding written, trailing "=" ignored on input,
 * SyntaxError on a character outside the alphabet or on leftover bits. A property test
 * (test/browser/sw-shims.test.ts) holds it to multiformats' output on random inputs.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const INDEX: Record<string, number> = /* @__PURE__ */ Object.fromEntries([...ALPHABET].map((c, i) => [c, i]));

function encode(data: Uint8Array): string {
  let out = '';
  let bits = 0;
  let buffer = 0;
  for (const byte of data) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits > 6) {
      bits -= 6;
      out += ALPHABET[63 & (buffer >> bits)];
    }
  }
  if (bits !== 0) out += ALPHABET[63 & (buffer << (6 - bits))];
  return out;
}

function decode(text: string): Uint8Array {
  let end = text.length;
  while (text[end - 1] === '=') --end;
  const out = new Uint8Array(((end * 6) / 8) | 0);
  let bits = 0;
  let buffer = 0;
  let written = 0;
  for (let i = 0; i < end; ++i) {
    const value = INDEX[text[i] as string];
    if (value === undefined) throw new SyntaxError('Non-base64url character');
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = 0xff & (buffer >> bits);
    }
  }
  if (bits >= 6 || (0xff & (buffer << (8 - bits))) !== 0) throw new SyntaxError('Unexpected end of data');
  return out;
}

export const base64url = /* @__PURE__ */ Object.freeze({
  name: 'base64url',
  prefix: 'u',
  encode: (bytes: Uint8Array): string => `u${encode(bytes)}`,
  decode(text: string): Uint8Array {
    if (typeof text !== 'string') throw new Error('Can only multibase decode strings');
    if (text.codePointAt(0) !== 0x75) throw new Error('a base64url multibase string starts with "u"');
    return decode(text.slice(1));
  },
});
