import { describe, expect, it } from 'vitest';
import { decrypt, encrypt, parseAeadEnvelope, type AeadEnvelope } from '../../../wallet/crypto/aead.ts';
import { base64urlToBytes, bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { bytesToHex, hexToBytes, utf8ToBytes } from '../../../wallet/crypto/bytes.ts';
import {
  createPassphraseKey,
  derivePassphraseKey,
  assertScryptCost,
  SCRYPT_DEFAULT_COST,
  type ScryptParams,
} from '../../../wallet/crypto/kdf.ts';

const code = (c: string) => expect.objectContaining({ code: c });
const key = hexToBytes('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
const otherKey = hexToBytes('ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');

// McGrew & Viega, "The Galois/Counter Mode of Operation", Test Case 16 (AES-256, 96-bit IV,
// with AAD), written as a Mandate envelope: iv = IV, ct = C ‖ T.
const GCM_TC16 = {
  key: hexToBytes('feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308'),
  aad: hexToBytes('feedfacedeadbeeffeedfacedeadbeefabaddad2'),
  plaintext:
    'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39',
  envelope: {
    v: 1,
    alg: 'A256GCM',
    iv: bytesToBase64url(hexToBytes('cafebabefacedbaddecaf888')),
    ct: bytesToBase64url(
      hexToBytes(
        '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662' +
          '76fc6ece0f4e1768cddf8853bb2d551b',
      ),
    ),
  } as AeadEnvelope,
};

/** Flips one bit of the decoded field and re-encodes it. */
function tamper(envelope: AeadEnvelope, field: 'iv' | 'ct', index: number): AeadEnvelope {
  const bytes = base64urlToBytes(envelope[field]) as Uint8Array;
  bytes[index] = (bytes[index] as number) ^ 1;
  return { ...envelope, [field]: bytesToBase64url(bytes) };
}

describe('aead (AES-256-GCM envelope)', () => {
  it('decrypts the GCM specification test case 16 written as an envelope', async () => {
    const plaintext = await decrypt(GCM_TC16.key, GCM_TC16.envelope, GCM_TC16.aad);
    expect(bytesToHex(plaintext)).toBe(GCM_TC16.plaintext);
  });

  it('round-trips with and without AAD in the documented envelope shape', async () => {
    const plaintext = utf8ToBytes('agent key material');
    const envelope = await encrypt(key, plaintext, utf8ToBytes('context'));
    expect(Object.keys(envelope).sort()).toEqual(['alg', 'ct', 'iv', 'v']);
    expect(envelope).toMatchObject({ v: 1, alg: 'A256GCM' });
    expect(base64urlToBytes(envelope.iv)).toHaveLength(12);
    expect(base64urlToBytes(envelope.ct)).toHaveLength(plaintext.length + 16);
    expect(envelope.iv + envelope.ct).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decrypt(key, JSON.parse(JSON.stringify(envelope)), utf8ToBytes('context'))).toEqual(plaintext);
    expect(await decrypt(key, await encrypt(key, new Uint8Array(0)))).toEqual(new Uint8Array(0));
  });

  it('uses a fresh random nonce for every message', async () => {
    const plaintext = utf8ToBytes('same message');
    const ivs = new Set<string>();
    for (let i = 0; i < 16; i++) ivs.add((await encrypt(key, plaintext)).iv);
    expect(ivs.size).toBe(16);
  });

  it('fails with DECRYPTION_FAILED, and nothing more, for a wrong key, a wrong AAD or any altered byte', async () => {
    const envelope = await encrypt(key, utf8ToBytes('secret plaintext'), utf8ToBytes('record-1'));
    // Each outcome is caught as the attempt starts: awaited one by one, a later attempt could
    // reject before its handler is attached, which Node reports as an unhandled rejection.
    const outcome = (attempt: Promise<Uint8Array>) =>
      attempt.then(
        () => undefined,
        (e: unknown) => e,
      );
    const errors = await Promise.all([
      outcome(decrypt(otherKey, envelope, utf8ToBytes('record-1'))),
      outcome(decrypt(key, envelope, utf8ToBytes('record-2'))),
      outcome(decrypt(key, envelope)),
      outcome(decrypt(key, tamper(envelope, 'ct', 0), utf8ToBytes('record-1'))),
      outcome(decrypt(key, tamper(envelope, 'ct', 16 + 15), utf8ToBytes('record-1'))), // last tag byte
      outcome(decrypt(key, tamper(envelope, 'iv', 11), utf8ToBytes('record-1'))),
    ]);
    for (const error of errors)
      expect(error).toMatchObject({ name: 'AeadError', code: 'DECRYPTION_FAILED', message: 'decryption failed' });
  });

  it('does not let the caller change the plaintext while encryption is in flight', async () => {
    const plaintext = utf8ToBytes('original');
    const pending = encrypt(key, plaintext);
    plaintext.set(utf8ToBytes('tampered'));
    expect(await decrypt(key, await pending)).toEqual(utf8ToBytes('original'));
  });

  it('refuses malformed envelopes with ENVELOPE_INVALID before decrypting', async () => {
    const good = await encrypt(key, utf8ToBytes('x'));
    const bad: unknown[] = [
      null,
      'envelope',
      [good],
      { ...good, v: 2 },
      { ...good, alg: 'A128GCM' },
      { ...good, tag: 'AAAA' },
      { v: good.v, alg: good.alg, iv: good.iv },
      { ...good, iv: bytesToBase64url(new Uint8Array(16)) },
      { ...good, iv: good.iv + '=' },
      { ...good, iv: good.iv.replace(/.$/, '+') },
      { ...good, ct: bytesToBase64url(new Uint8Array(15)) },
      { ...good, ct: 42 },
    ];
    for (const envelope of bad) {
      expect(() => parseAeadEnvelope(envelope)).toThrow(code('ENVELOPE_INVALID'));
      await expect(decrypt(key, envelope)).rejects.toThrow(code('ENVELOPE_INVALID'));
    }
  });

  it('accepts only canonical base64url', () => {
    expect(base64urlToBytes('AQID_w')).toEqual(new Uint8Array([1, 2, 3, 255]));
    expect(base64urlToBytes('AQID_x')).toBeUndefined(); // stray low bits
    expect(base64urlToBytes('AQID_w==')).toBeUndefined();
    expect(base64urlToBytes('AQ+D')).toBeUndefined();
  });

  it('requires a 32-byte key', async () => {
    await expect(encrypt(new Uint8Array(16), utf8ToBytes('x'))).rejects.toThrow(code('INVALID_BYTES'));
    await expect(decrypt(new Uint8Array(16), GCM_TC16.envelope)).rejects.toThrow(code('INVALID_BYTES'));
  });
});

const FAST = { N: 2 ** 10, r: 8, p: 1 };

describe('kdf (scrypt)', () => {
  it('matches an independent scrypt (OpenSSL via node:crypto, N=1024 r=8 p=1)', async () => {
    const params: ScryptParams = {
      alg: 'scrypt',
      ...FAST,
      salt: bytesToBase64url(hexToBytes('000102030405060708090a0b0c0d0e0f')),
    };
    expect(bytesToHex(await derivePassphraseKey('correct horse battery staple', params))).toBe(
      '9a9f74cc441de571a18c4bf8580ad51f86745d14b39065ad24ad92fc05c99515',
    );
  });

  it('normalizes passphrases to NFC, so composed and decomposed accents unlock the same key', async () => {
    const params: ScryptParams = {
      alg: 'scrypt',
      ...FAST,
      salt: bytesToBase64url(hexToBytes('000102030405060708090a0b0c0d0e0f')),
    };
    const expected = '2b759c87a7ae5ed4800d0f9ae4ffa8f72d2f3b2eb115c5f1b333ab04c5e42bcf'; // scrypt("caf\u00e9")
    expect(bytesToHex(await derivePassphraseKey('caf\u00e9', params))).toBe(expected);
    expect(bytesToHex(await derivePassphraseKey('cafe\u0301', params))).toBe(expected);
  });

  it('derives the same key again from the stored parameters, with a fresh salt per key', async () => {
    const first = await createPassphraseKey('passphrase', FAST);
    const second = await createPassphraseKey('passphrase', FAST);
    expect(first.params).toMatchObject({ alg: 'scrypt', N: 1024, r: 8, p: 1 });
    expect(base64urlToBytes(first.params.salt)).toHaveLength(16);
    expect(first.params.salt).not.toBe(second.params.salt);
    expect(first.key).not.toEqual(second.key);
    expect(await derivePassphraseKey('passphrase', JSON.parse(JSON.stringify(first.params)))).toEqual(first.key);
    expect(await derivePassphraseKey('Passphrase', first.params)).not.toEqual(first.key);
  });

  it('defaults to N=2^17, r=8, p=1', async () => {
    const { key: derived, params } = await createPassphraseKey('passphrase');
    expect(params).toMatchObject({ alg: 'scrypt', N: 2 ** 17, r: 8, p: 1 });
    expect(SCRYPT_DEFAULT_COST).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    expect(derived).toHaveLength(32);
  }, 120_000); // 128 MiB of scrypt: seconds on a busy machine

  it('refuses absurd or malformed parameters read from storage with KDF_PARAMS_INVALID, before any work', async () => {
    const salt = bytesToBase64url(new Uint8Array(16));
    const bad: unknown[] = [
      null,
      { alg: 'scrypt', N: 2 ** 30, r: 8, p: 1, salt }, // 128 GiB: would exhaust the process
      { alg: 'scrypt', N: 2 ** 21, r: 8, p: 1, salt }, // 2 GiB
      { alg: 'scrypt', N: 2 ** 17, r: 8, p: 8, salt }, // 8× the default work
      { alg: 'scrypt', N: 2 ** 17, r: 8, p: 2 ** 40, salt },
      { alg: 'scrypt', N: 1000, r: 8, p: 1, salt }, // not a power of two
      { alg: 'scrypt', N: 2 ** 9, r: 8, p: 1, salt }, // below the floor
      { alg: 'scrypt', N: 1024, r: 0, p: 1, salt },
      { alg: 'scrypt', N: 1024, r: 8, p: 1.5, salt },
      { alg: 'scrypt', N: '1024', r: 8, p: 1, salt },
      { alg: 'pbkdf2', N: 1024, r: 8, p: 1, salt },
      { alg: 'scrypt', N: 1024, r: 8, p: 1, salt: bytesToBase64url(new Uint8Array(8)) },
      { alg: 'scrypt', N: 1024, r: 8, p: 1, salt: 'not base64url!' },
      { alg: 'scrypt', N: 1024, r: 8, p: 1, salt, dkLen: 64 },
    ];
    for (const params of bad) {
      await expect(derivePassphraseKey('passphrase', params)).rejects.toThrow(code('KDF_PARAMS_INVALID'));
    }
    await expect(createPassphraseKey('passphrase', { N: 2 ** 30, r: 8, p: 1 })).rejects.toThrow(
      code('KDF_PARAMS_INVALID'),
    );
    expect(() => assertScryptCost({ N: 2 ** 20, r: 1, p: 1 })).not.toThrow();
    // Below 1 MiB of memory a guess costs well under a millisecond: a typo must not get there.
    expect(() => assertScryptCost({ N: 2 ** 10, r: 1, p: 1 })).toThrow(code('KDF_PARAMS_INVALID'));
    expect(() => assertScryptCost({ N: 2 ** 13, r: 1, p: 1 })).not.toThrow();
  });

  it('refuses empty, non-string and over-long passphrases with PASSPHRASE_INVALID', async () => {
    await expect(createPassphraseKey('', FAST)).rejects.toThrow(code('PASSPHRASE_INVALID'));
    await expect(createPassphraseKey(undefined as unknown as string, FAST)).rejects.toThrow(code('PASSPHRASE_INVALID'));
    await expect(createPassphraseKey('é'.repeat(513), FAST)).rejects.toThrow(code('PASSPHRASE_INVALID'));
    await expect(createPassphraseKey('é'.repeat(512), FAST)).resolves.toBeDefined();
  });
});
