/**
 * A CredentialStore in one JSON file (Node only: import it from `wallet/node.ts`, never from
 * code that ships to browsers). Format: `{"version": 1, "credentials": [<credential>, …]}`.
 *
 * - Private by construction: the parent directory is created 0700, the file 0600.
 * - Atomic replace: the new content is written to a temporary file in the same directory
 *   (O_EXCL, 0600), fsync'd, then rename(2)d over the file (POSIX.1-2017 rename(): atomic), and
 *   the directory fsync'd; a reader sees the old or the new file, never a torn one.
 * - Read with O_NOFOLLOW (a symlink planted in place of the file is refused), as a regular file
 *   of at most `maxFileBytes`, strict UTF-8 safe JSON, every credential re-validated: anything
 *   else is CREDENTIAL_STORE_CORRUPT and the file is left as it is.
 * - Writes within one process are serialized; ONE process should own a wallet directory (two
 *   processes writing the same file can lose each other's additions, never corrupt it).
 */
import { constants } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { bytesToHex, bytesToUtf8, randomBytes } from '../crypto/bytes.ts';
import { parseJson } from '../crypto/jcs.ts';
import type { MandateCredential } from '../vc/types.ts';
import { errorCode, syncDirectory } from '../keystore/file.ts';
import {
  checkCredentialInput,
  checkStoredCredential,
  conflict,
  corruptStore,
  credentialFingerprint,
  full,
  maxCredentialsOf,
  type CredentialStore,
  type CredentialStoreLimits,
} from './credential-store.ts';

export interface FileCredentialStoreOptions extends CredentialStoreLimits {
  /** The JSON file, e.g. `<wallet dir>/credentials.json` (NOT inside a key store's directory). */
  path: string;
  /** Largest file read, in bytes (default 16 MiB). */
  maxFileBytes?: number | undefined;
}

const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;


async function readFileRecords(path: string, maxFileBytes: number): Promise<MandateCredential[]> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return [];
    if (code === 'ELOOP') throw corruptStore('the credential file is a symbolic link');
    throw error;
  }
  let text: string;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw corruptStore('the credential file is not a regular file');
    if (stat.size > maxFileBytes) throw corruptStore(`the credential file is larger than ${maxFileBytes} bytes`);
    try {
      text = bytesToUtf8(await handle.readFile());
    } catch (error) {
      throw corruptStore('the credential file is not valid UTF-8', error);
    }
  } finally {
    await handle.close();
  }
  let document;
  try {
    document = parseJson(text, { maxBytes: maxFileBytes });
  } catch (error) {
    throw corruptStore('the credential file is not safe JSON (torn or damaged write?)', error);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document) || document.version !== 1 || !Array.isArray(document.credentials)) {
    throw corruptStore('the credential file is not {"version": 1, "credentials": [...]}');
  }
  const credentials = document.credentials.map((value, i) => checkStoredCredential(value, `credential #${i} of the file`));
  if (new Set(credentials.map((c) => c.id)).size !== credentials.length) throw corruptStore('the credential file holds one id twice');
  return credentials;
}

async function writeFileRecords(path: string, credentials: readonly MandateCredential[]): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = join(directory, `.${basename(path)}.${bytesToHex(randomBytes(8))}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(JSON.stringify({ version: 1, credentials }, null, 2) + '\n');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(directory);
}

/** A CredentialStore in the JSON file `options.path`. */
export function createFileCredentialStore(options: FileCredentialStoreOptions): CredentialStore {
  const { path } = options;
  const max = maxCredentialsOf(options);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // One read-modify-write at a time, so concurrent puts in this process never lose each other.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  const load = (): Promise<MandateCredential[]> => readFileRecords(path, maxFileBytes);
  const byId = (a: MandateCredential, b: MandateCredential): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  return {
    list: async () => (await load()).sort(byId),
    get: async (id) => (await load()).find((c) => c.id === id),
    put: (credential) =>
      exclusive(async () => {
        const copy = checkCredentialInput(credential);
        const fingerprint = credentialFingerprint(copy);
        const credentials = await load();
        const existing = credentials.find((c) => c.id === copy.id);
        if (existing) {
          if (credentialFingerprint(existing) !== fingerprint) throw conflict(copy.id);
          return;
        }
        if (credentials.length >= max) throw full(max);
        await writeFileRecords(path, [...credentials, copy].sort(byId));
      }),
    delete: (id) =>
      exclusive(async () => {
        const credentials = await load();
        const kept = credentials.filter((c) => c.id !== id);
        if (kept.length === credentials.length) return false;
        await writeFileRecords(path, kept);
        return true;
      }),
  };
}
