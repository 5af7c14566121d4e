import { describe, expect, it } from 'vitest';
import { assertBytes, bytesToUtf8, equalBytes, hexToBytes, utf8ToBytes } from '../../../wallet/crypto/bytes.ts';

describe('bytes', () => {
  it('parses hex with typed errors', () => {
    expect(hexToBytes('00ff', 2)).toEqual(new Uint8Array([0, 255]));
    expect(() => hexToBytes('0')).toThrow(expect.objectContaining({ code: 'INVALID_HEX' }));
    expect(() => hexToBytes('zz')).toThrow(expect.objectContaining({ code: 'INVALID_HEX' }));
    expect(() => hexToBytes('00', 2, 'seed')).toThrow(/seed must encode 2 bytes/);
  });

  it('validates byte arguments', () => {
    expect(() => assertBytes('x', undefined, 'msg')).toThrow(expect.objectContaining({ code: 'INVALID_BYTES' }));
    expect(() => assertBytes(new Uint8Array(3), 32, 'key')).toThrow(/key must be 32 bytes/);
  });

  it('compares bytes', () => {
    expect(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(equalBytes(new Uint8Array([1]), new Uint8Array([1, 2]))).toBe(false);
  });

  it('decodes UTF-8 strictly', () => {
    expect(bytesToUtf8(utf8ToBytes('héllo'))).toBe('héllo');
    expect(() => bytesToUtf8(new Uint8Array([0xff]))).toThrow();
  });
});
