/**
 * The shape rules of the secrets (wherever dev-secrets.ts found them) and of the introspection
 * keys, and in production the refusal of placeholders. The numbers: docs/operations.md §Configuration.
 */
import { equalBytes, hexToBytes } from '../../wallet/crypto/bytes.ts';
import type { GatheredSecrets, SecretName } from './dev-secrets.ts';
import { invalid, type Problems } from './errors.ts';

/**
 * RFC 6750 §2.1 `b64token` (token68): the characters a Bearer credential can carry. A key with
 * any other character (a space, `!`, `:`) could be configured but never presented.
 */
export const BEARER_TOKEN_CHARACTERS = '[A-Za-z0-9\\-._~+/]+=*';

const HEX32 = /^[0-9a-fA-F]{64}$/;
const MIN_ADMIN_KEY_LENGTH = 32;

/**
 * Fewer distinct values than any random secret of its size would show (chance below 1e-12): a
 * placeholder left in production. The numbers: docs/operations.md §Configuration.
 */
const MIN_DISTINCT_KEY_BYTES = 16;
const MIN_DISTINCT_ADMIN_KEY_CHARACTERS = 6;

const PLACEHOLDER =
  "is not random (a placeholder?); generate one with: node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\"";

function looksPlaceholder(values: Iterable<unknown>, minDistinct: number): boolean {
  return new Set(values).size < minDistinct;
}

function parseKey(value: string, name: string, source: string): Uint8Array {
  if (!HEX32.test(value)) invalid(`${name}: must be 32 bytes as 64 hexadecimal characters (${source})`);
  return hexToBytes(value, 32, name);
}

/** The admin key's shape rules, and in production that it does not look like a placeholder. */
function checkAdminKey(adminApiKey: string, source: string, production: boolean): string {
  if (adminApiKey.length < MIN_ADMIN_KEY_LENGTH)
    invalid(`SERVICE_ADMIN_API_KEY: must be at least ${MIN_ADMIN_KEY_LENGTH} characters (${source})`);
  if (!new RegExp(`^${BEARER_TOKEN_CHARACTERS}$`).test(adminApiKey)) {
    invalid(
      `SERVICE_ADMIN_API_KEY: may hold only letters, digits and - . _ ~ + /, with = only at the end, as a Bearer token can (RFC 6750 §2.1) (${source})`,
    );
  }
  if (production && looksPlaceholder(adminApiKey, MIN_DISTINCT_ADMIN_KEY_CHARACTERS))
    invalid(`SERVICE_ADMIN_API_KEY: ${PLACEHOLDER}`);
  return adminApiKey;
}

/** A 32-byte key in hex, and in production one that does not look like a placeholder. */
function checkKey(value: string, name: SecretName, source: string, production: boolean): Uint8Array {
  const key = parseKey(value, name, source);
  if (production && looksPlaceholder(key, MIN_DISTINCT_KEY_BYTES)) invalid(`${name}: ${PLACEHOLDER}`);
  return key;
}

export interface CheckedSecrets {
  adminApiKey: string;
  signingKey: Uint8Array;
  keyEncryptionKey: Uint8Array;
}

/**
 * The secrets' shape rules, and in production that none looks like a placeholder. A secret that
 * is missing or wrong is a recorded problem, and stands in as empty: nothing is assembled then.
 */
export function checkSecrets(secrets: GatheredSecrets, production: boolean, problems: Problems): CheckedSecrets {
  const { values, source } = secrets;
  const admin = values.SERVICE_ADMIN_API_KEY;
  const adminApiKey =
    admin === undefined
      ? undefined
      : problems.check(undefined, () => checkAdminKey(admin, source('SERVICE_ADMIN_API_KEY'), production));
  const key = (name: 'SERVICE_SIGNING_KEY' | 'SERVICE_KEY_ENCRYPTION_KEY'): Uint8Array | undefined => {
    const value = values[name];
    return value === undefined
      ? undefined
      : problems.check(undefined, () => checkKey(value, name, source(name), production));
  };
  const signingKey = key('SERVICE_SIGNING_KEY');
  const keyEncryptionKey = key('SERVICE_KEY_ENCRYPTION_KEY');
  // One secret as both an AES key and an Ed25519 seed: whoever learns one learns both.
  if (signingKey !== undefined && keyEncryptionKey !== undefined && equalBytes(signingKey, keyEncryptionKey))
    problems.check(undefined, () => invalid('SERVICE_KEY_ENCRYPTION_KEY: must differ from SERVICE_SIGNING_KEY'));
  return {
    adminApiKey: adminApiKey ?? '',
    signingKey: signingKey ?? new Uint8Array(32),
    keyEncryptionKey: keyEncryptionKey ?? new Uint8Array(32),
  };
}

/** SERVICE_INTROSPECTION_KEYS: comma-separated keys, each held to the admin key's rules and none the admin key. */
export function parseIntrospectionKeys(
  value: string | undefined,
  adminApiKey: string | undefined,
  production: boolean,
  problems: Problems,
): string[] {
  if (value === undefined) return [];
  const keys = value.split(',').map((key) => key.trim());
  const bearer = new RegExp(`^${BEARER_TOKEN_CHARACTERS}$`);
  for (const [i, key] of keys.entries()) {
    const name = `SERVICE_INTROSPECTION_KEYS (key ${i + 1})`;
    problems.check(undefined, () => {
      if (key.length < MIN_ADMIN_KEY_LENGTH || !bearer.test(key))
        invalid(`${name}: must be at least ${MIN_ADMIN_KEY_LENGTH} characters a Bearer token can hold (RFC 6750 §2.1)`);
      if (key === adminApiKey)
        invalid(`${name}: must differ from SERVICE_ADMIN_API_KEY (it grants introspection only)`);
      if (production && looksPlaceholder(key, MIN_DISTINCT_ADMIN_KEY_CHARACTERS))
        invalid(`${name}: is not random (a placeholder?)`);
    });
  }
  return keys;
}
