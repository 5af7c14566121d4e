/**
 * Where the three secrets (`SERVICE_ADMIN_API_KEY`, `SERVICE_SIGNING_KEY`,
 * `SERVICE_KEY_ENCRYPTION_KEY`) come from:
 * - production: the environment only; a missing one is a problem (CONFIG_MISSING);
 * - development/test: a missing one is generated ONCE and kept in `issuer-secrets.json` beside
 *   the database (mode 0600), re-read on later starts so a restart keeps the same issuer key,
 *   and announced as a warning that names the file — never the secret itself
 *   (docs/operations.md §Development secrets file).
 * Their shape rules are in secret-rules.ts.
 */
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { bytesToHex, randomBytes } from '../../wallet/crypto/bytes.ts';
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { exposedFileReason } from '../../wallet/keystore/file.ts';
import type { ParsedEnv } from './env-schema.ts';
import { ConfigError, issueLine, type Problems } from './errors.ts';

const SECRETS_FILE = 'issuer-secrets.json';

export const SECRET_NAMES = ['SERVICE_ADMIN_API_KEY', 'SERVICE_SIGNING_KEY', 'SERVICE_KEY_ENCRYPTION_KEY'] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

const storedSecretsSchema = z.object({
  adminApiKey: z.string().optional(),
  signingKey: z.string().optional(),
  keyEncryptionKey: z.string().optional(),
});
type StoredSecrets = z.infer<typeof storedSecretsSchema>;

const STORED_AS: Record<SecretName, keyof StoredSecrets> = {
  SERVICE_ADMIN_API_KEY: 'adminApiKey',
  SERVICE_SIGNING_KEY: 'signingKey',
  SERVICE_KEY_ENCRYPTION_KEY: 'keyEncryptionKey',
};

/** The stored secrets, or undefined when there is no file. */
function readSecretsFile(path: string): StoredSecrets | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  // Another user's file, or one others may read or write, could hold keys someone else knows.
  const exposed = exposedFileReason(stat);
  if (exposed !== undefined) throw new ConfigError('SECRETS_FILE_INVALID', `${path} is not used: ${exposed}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new ConfigError(
      'SECRETS_FILE_INVALID',
      `${path} is not valid JSON; restore it (deleting it generates new secrets, and keys encrypted under the old key-encryption key can no longer be read)`,
    );
  }
  const result = storedSecretsSchema.safeParse(parsed);
  if (!result.success) throw new ConfigError('SECRETS_FILE_INVALID', `${path}: ${issueLine(result.error.issues[0])}`);
  return result.data;
}

/**
 * Written whole or not at all (temporary file, flush, put in place); a new file is linked, so of
 * two issuers racing, false tells the loser to read the winner's file (docs/operations.md §Development secrets file).
 */
function writeSecretsFile(path: string, secrets: StoredSecrets, create: boolean): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${bytesToHex(randomBytes(8))}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeFileSync(fd, `${JSON.stringify(secrets, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (!create) {
      renameSync(temporary, path);
      return true;
    }
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    return true;
  } finally {
    rmSync(temporary, { force: true });
  }
}

export interface GatheredSecrets {
  /** Undefined only for a secret production is missing (a problem recorded already). */
  values: Record<SecretName, string | undefined>;
  /** Secrets the environment does not set. */
  missing: SecretName[];
  secretsFile: string | undefined;
  secretsFileExisted: boolean;
  /** What the secrets file holds afterwards (with the generated secrets). */
  stored: StoredSecrets;
  generatedSecrets: string[];
  /** Where a secret came from, for error messages. */
  source: (name: SecretName) => string;
}

/** Production: the environment's secrets, each missing one a problem. */
function productionSecrets(e: ParsedEnv, missing: SecretName[], problems: Problems): GatheredSecrets {
  if (missing.length > 0)
    problems.check(undefined, () => {
      throw new ConfigError(
        'CONFIG_MISSING',
        `${missing.join(', ')}: required in production (generate with: node -e "console.log(require('crypto').randomBytes(32).toString('hex'))")`,
      );
    });
  const values = {
    SERVICE_ADMIN_API_KEY: e.SERVICE_ADMIN_API_KEY,
    SERVICE_SIGNING_KEY: e.SERVICE_SIGNING_KEY,
    SERVICE_KEY_ENCRYPTION_KEY: e.SERVICE_KEY_ENCRYPTION_KEY,
  };
  return {
    values,
    missing,
    secretsFile: undefined,
    secretsFileExisted: false,
    stored: {},
    generatedSecrets: [],
    source: () => 'environment',
  };
}

/** Development and test: what the environment lacks is read from (or generated into) the secrets file. */
function developmentSecrets(e: ParsedEnv, missing: SecretName[], problems: Problems): GatheredSecrets {
  let secretsFile: string | undefined;
  let stored: StoredSecrets = {};
  let secretsFileExisted = false;
  if (missing.length > 0 && e.SERVICE_SQLITE_PATH !== ':memory:') {
    const path = join(dirname(resolve(e.SERVICE_SQLITE_PATH)), SECRETS_FILE);
    secretsFile = path;
    const existing = problems.check(undefined, () => readSecretsFile(path));
    secretsFileExisted = existing !== undefined;
    stored = existing ?? {};
  }
  const generatedSecrets: string[] = [];
  const fill = (name: SecretName, make: () => string): string => {
    const key = STORED_AS[name];
    const value = e[name] ?? stored[key];
    if (value !== undefined) return value;
    generatedSecrets.push(name);
    const made = make();
    stored = { ...stored, [key]: made };
    return made;
  };
  const values = {
    SERVICE_ADMIN_API_KEY: fill('SERVICE_ADMIN_API_KEY', () => bytesToBase64url(randomBytes(32))),
    SERVICE_SIGNING_KEY: fill('SERVICE_SIGNING_KEY', () => bytesToHex(randomBytes(32))),
    SERVICE_KEY_ENCRYPTION_KEY: fill('SERVICE_KEY_ENCRYPTION_KEY', () => bytesToHex(randomBytes(32))),
  };
  const source = (name: SecretName) => (e[name] !== undefined ? 'environment' : (secretsFile ?? 'generated'));
  return { values, missing, secretsFile, secretsFileExisted, stored, generatedSecrets, source };
}

/** Secrets: from the environment; in production, nothing else; otherwise read from (or generated into) the secrets file. */
export function gatherSecrets(e: ParsedEnv, production: boolean, problems: Problems): GatheredSecrets {
  const missing = SECRET_NAMES.filter((name) => e[name] === undefined);
  return production ? productionSecrets(e, missing, problems) : developmentSecrets(e, missing, problems);
}

/**
 * Stores the secrets generated on this start, if any. False when another issuer created the
 * file first: the caller starts over and uses what that one stored.
 */
export function storeGeneratedSecrets(secrets: GatheredSecrets): boolean {
  if (secrets.generatedSecrets.length === 0 || secrets.secretsFile === undefined) return true;
  return writeSecretsFile(secrets.secretsFile, secrets.stored, !secrets.secretsFileExisted);
}

/** The secrets file `IssuerConfig.secretsFile` names: one this start used. */
export function usedSecretsFile(secrets: GatheredSecrets): string | undefined {
  return secrets.generatedSecrets.length > 0 || secrets.missing.length > 0 ? secrets.secretsFile : undefined;
}

/** What the operator is told about development secrets, if anything. */
export function secretsWarning(secrets: GatheredSecrets): string | undefined {
  const { generatedSecrets, secretsFile, missing } = secrets;
  if (generatedSecrets.length > 0) {
    return secretsFile === undefined
      ? `development secrets generated in memory (${generatedSecrets.join(', ')}); they are lost on exit`
      : `development secrets generated (${generatedSecrets.join(', ')}) and stored in ${secretsFile}; set them in the environment for production`;
  }
  if (secretsFile !== undefined && missing.length > 0)
    return `development secrets (${missing.join(', ')}) read from ${secretsFile}`;
  return undefined;
}
