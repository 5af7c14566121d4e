/**
 * Byte helpers shared by every layer. Conversions come from @noble/hashes (one audited way
 * to do them); what is added here is boundary validation with Mandate's typed errors and a
 * constant-time comparison for secrets.
 */
import {
  bytesToHex,
  concatBytes,
  hexToBytes as nobleHexToBytes,
  randomBytes,
  utf8ToBytes,
} from '@noble/hashes/utils.js';
import { MandateError } from './errors.ts';

export { bytesToHex, concatBytes, randomBytes, utf8ToBytes };

export type BytesErrorCode = 'INVALID_BYTES' | 'INVALID_HEX';

export class BytesError extends MandateError<BytesErrorCode> {
  override name = 'BytesError';
}

/** Asserts `value` is a Uint8Array (of `length` bytes when given); `name` appears in the message. */
export function assertBytes(value: unknown, length: number | undefined, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new BytesError('INVALID_BYTES', `${name} must be a Uint8Array`);
  if (length !== undefined && value.length !== length) {
    throw new BytesError('INVALID_BYTES', `${name} must be ${length} bytes, got ${value.length}`);
  }
  return value;
}

/** Hex (even length, [0-9a-fA-F]) to bytes, with a typed error instead of a bare throw. */
export function hexToBytes(hex: string, length?: number, name = 'hex'): Uint8Array {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new BytesError('INVALID_HEX', `${name} must be an even-length hexadecimal string`);
  }
  const bytes = nobleHexToBytes(hex);
  if (length !== undefined && bytes.length !== length) {
    throw new BytesError('INVALID_HEX', `${name} must encode ${length} bytes, got ${bytes.length}`);
  }
  return bytes;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 decoding: invalid sequences throw instead of becoming U+FFFD. */
export function bytesToUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Compares two byte strings in time that depends only on their lengths, for secrets
 * (tokens, MACs). Lengths are not secret in any of Mandate's uses.
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
