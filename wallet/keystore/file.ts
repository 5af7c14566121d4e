/**
 * A KeyStore on the local file system (Node only: import it from `wallet/keystore/node.ts`,
 * never from code that ships to browsers). One JSON record per key, `<directory>/<id>.json`
 * (format in record.ts and docs/keystores.md).
 *
 * Private (directory 0700, files 0600), crash-safe and no-clobber (temporary file, fsync, then
 * link(2), which fails with EEXIST instead of replacing: POSIX.1-2017 link()). A corrupt record
 * is reported and left as it is (KEY_FILE_CORRUPT); a key file others own or may access is
 * refused, as ssh refuses such keys (KEY_FILE_EXPOSED). With a passphrase, new keys are
 * encrypted (scrypt → AES-256-GCM). Why each: docs/keystores.md §File store (Node).
 */
import { constants } from 'node:fs';
import { link, mkdir, open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { bytesToHex, bytesToUtf8, randomBytes } from '../crypto/bytes.ts';
import type { ScryptCost } from '../crypto/kdf.ts';
import { createKeyStore, keyExists } from './core.ts';
import { corrupt, type KeyRecord } from './record.ts';
import { KeyStoreError, type KeyStore } from './types.ts';

export interface FileKeyStoreOptions {
  /** Directory of the key files; created (mode 0700, with parents) on the first write. */
  readonly directory: string;
  /** Encrypts new keys and decrypts encrypted ones; without it, new keys are stored unencrypted. */
  readonly passphrase?: string | undefined;
  /** scrypt cost for new encrypted keys (default SCRYPT_DEFAULT_COST). */
  readonly kdfCost?: ScryptCost | undefined;
}

/** Far above any record (≈ 600 bytes); bounds what a planted file can make us read. */
const MAX_RECORD_BYTES = 64 * 1024;
const SUFFIX = '.json';

/** The temporary files of `id`'s writes, `.<id>.<16 hex>.tmp`, and no other id's (ids may contain dots). */
function temporaryNameOf(id: string): RegExp {
  return new RegExp(`^\\.${id.replaceAll('.', '\\.')}\\.[0-9a-f]{16}\\.tmp$`);
}

/**
 * Why a file holding secrets must not be trusted: it belongs to another user than this process,
 * or its group or others have any access (POSIX mode bits; Windows reports none). Undefined when
 * it is private.
 */
export function exposedFileReason(stat: { uid: number; mode: number }): string | undefined {
  if (process.platform === 'win32') return undefined;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `it belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o077) !== 0)
    return `its group or others have access (mode ${(stat.mode & 0o777).toString(8)}; chmod 600 it)`;
  return undefined;
}

/** The `code` of a Node system error (ENOENT, EEXIST, …), if any. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** fsync a directory so a created or removed name is durable (a no-op where unsupported). */
export async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or fsync a directory; the link itself is still atomic.
  } finally {
    await handle?.close();
  }
}

async function readRecord(path: string, id: string): Promise<unknown> {
  let handle;
  try {
    // O_NOFOLLOW: a symlink planted in place of a key file is refused, not followed.
    // O_NONBLOCK: a FIFO planted there opens at once (and is refused below as not a regular
    // file) instead of blocking a thread-pool thread until someone writes to it.
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw corrupt(id, 'the key file is a symbolic link');
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw corrupt(id, 'not a regular file');
    const exposed = exposedFileReason(stat);
    if (exposed !== undefined)
      throw new KeyStoreError('KEY_FILE_EXPOSED', `stored key "${id}" is not used: ${exposed}`);
    if (stat.size > MAX_RECORD_BYTES) throw corrupt(id, `larger than ${MAX_RECORD_BYTES} bytes`);
    const bytes = await handle.readFile();
    try {
      return JSON.parse(bytesToUtf8(bytes)) as unknown;
    } catch (error) {
      throw corrupt(id, 'not valid UTF-8 JSON (torn or damaged write?)', error);
    }
  } finally {
    await handle.close();
  }
}

async function writeRecordExclusive(directory: string, id: string, record: KeyRecord): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = join(directory, `.${id}.${bytesToHex(randomBytes(8))}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(JSON.stringify(record, null, 2) + '\n');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, join(directory, id + SUFFIX));
    } catch (error) {
      if (errorCode(error) === 'EEXIST') throw keyExists(id);
      throw error;
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  await syncDirectory(directory);
}

/** A KeyStore keeping one JSON file per key in `options.directory`. */
export function createFileKeyStore(options: FileKeyStoreOptions): KeyStore {
  const { directory, passphrase, kdfCost } = options;
  const pathOf = (id: string): string => join(directory, id + SUFFIX);
  return createKeyStore({
    passphrase,
    kdfCost,
    protection: () => (passphrase === undefined ? 'plain' : 'passphrase'),
    backend: {
      read: (id) => readRecord(pathOf(id), id),
      insert: (id, record) => writeRecordExclusive(directory, id, record),
      async remove(id) {
        // A write cut short by a crash can leave its temporary file, possibly a second link to
        // the record: it goes with the key.
        const temporary = temporaryNameOf(id);
        const leftovers = (await readdir(directory).catch(() => [] as string[])).filter((name) => temporary.test(name));
        await Promise.all(leftovers.map((name) => unlink(join(directory, name)).catch(() => undefined)));
        let removed = true;
        try {
          await unlink(pathOf(id));
        } catch (error) {
          if (errorCode(error) !== 'ENOENT') throw error;
          removed = false;
        }
        if (removed || leftovers.length > 0) await syncDirectory(directory);
        return removed;
      },
      async ids() {
        let names: string[];
        try {
          names = await readdir(directory);
        } catch (error) {
          if (errorCode(error) === 'ENOENT') return [];
          throw error;
        }
        return names.filter((name) => name.endsWith(SUFFIX)).map((name) => name.slice(0, -SUFFIX.length));
      },
    },
  });
}
