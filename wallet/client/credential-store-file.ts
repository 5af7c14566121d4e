/**
 * A CredentialStore in one JSON file (Node only: import it from `wallet/node.ts`, never from
 * code that ships to browsers). Format: `{"version": 1, "credentials": [<credential>, …]}`.
 *
 * Private (0700/0600), replaced atomically (temporary file, fsync, rename(2): POSIX.1-2017
 * rename()), read with O_NOFOLLOW and re-validated (else CREDENTIAL_STORE_CORRUPT, file left as
 * it is). Every put and delete holds an in-process queue per file and an O_EXCL lock file
 * `.<file>.lock` across processes, broken once stale (dead owner, or older than LOCK_STALE_MS).
 * Why each: docs/wallet.md §Credential stores.
 */
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, realpath, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';
import { bytesToHex, bytesToUtf8, randomBytes } from '../crypto/bytes.ts';
import { parseJson } from '../crypto/json-parse.ts';
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
  if (
    document === null ||
    typeof document !== 'object' ||
    Array.isArray(document) ||
    document.version !== 1 ||
    !Array.isArray(document.credentials)
  ) {
    throw corruptStore('the credential file is not {"version": 1, "credentials": [...]}');
  }
  const credentials = document.credentials.map((value, i) =>
    checkStoredCredential(value, `credential #${i} of the file`),
  );
  if (new Set(credentials.map((c) => c.id)).size !== credentials.length)
    throw corruptStore('the credential file holds one id twice');
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

// ---------------------------------------------------------------------------------------------
// In-process queue: one per file, shared by every store object on it.

/** The tail of each file's queue, by queueKey; an entry is dropped as soon as its queue drains. */
const fileQueues = new Map<string, Promise<void>>();

const ignore = (): void => undefined;

/** Runs `run` after every earlier run queued for `key` in this process has settled. */
function serializeFile<T>(key: string, run: () => Promise<T>): Promise<T> {
  const result = (fileQueues.get(key) ?? Promise.resolve()).then(run);
  const tail = result.then(ignore, ignore);
  fileQueues.set(key, tail);
  // Only the last run of a burst finds itself still the tail: the Map never outgrows the files in use.
  void tail.then(() => {
    if (fileQueues.get(key) === tail) fileQueues.delete(key);
  });
  return result;
}

/**
 * The queue's key: the absolute path with symlinks in its EXISTING directories resolved (two
 * spellings of one directory share a queue), the file name as written (docs/wallet.md §Credential stores).
 */
async function queueKey(path: string): Promise<string> {
  const absolute = resolve(path);
  const missing = [basename(absolute)];
  for (let directory = dirname(absolute); ; directory = dirname(directory)) {
    try {
      return join(await realpath(directory), ...missing);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' || dirname(directory) === directory) return absolute;
      missing.unshift(basename(directory));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Lock file: serializes writers across processes.

/**
 * A lock older than this is taken to be abandoned (a crash, a writer on another host). A
 * read-modify-write holds the lock for milliseconds; a writer stalled longer than this may lose
 * its lock, and then its write may undo a concurrent addition (the file is still never torn).
 */
export const LOCK_STALE_MS = 30_000;
const LOCK_RETRY_MIN_MS = 2;
const LOCK_RETRY_MAX_MS = 100;
const LOCK_MAX_BYTES = 1024;

/** Nonces of the locks this thread (this module instance) holds right now. */
const heldLocks = new Set<string>();

interface LockOwner {
  pid: number;
  /** Worker threads share the pid but not this module's `heldLocks`. */
  thread: number;
  host: string;
  nonce: string;
}

/** What was found at a lock path: enough to tell later whether it is still the same lock. */
interface LockSeen {
  ino: number;
  mtimeMs: number;
  text: string | undefined;
}

const lockPathOf = (path: string): string => join(dirname(path), `.${basename(path)}.lock`);

function parseOwner(text: string | undefined): LockOwner | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // Being written right now, or torn by a crash: judged by its age alone.
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { pid, thread, host, nonce } = value as Record<string, unknown>;
  // pid ≤ 0 would address process groups in process.kill.
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (typeof thread !== 'number' || typeof host !== 'string' || typeof nonce !== 'string') return undefined;
  return { pid, thread, host, nonce };
}

/** The lock at `lockPath`, or undefined when there is none. Never follows a symlink. */
async function inspectLock(lockPath: string): Promise<LockSeen | undefined> {
  let stat;
  try {
    stat = await lstat(lockPath);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  let text: string | undefined;
  try {
    const handle = await open(lockPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(LOCK_MAX_BYTES), 0, LOCK_MAX_BYTES, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    text = undefined; // A symlink or unreadable: judged by its age alone.
  }
  return { ino: stat.ino, mtimeMs: stat.mtimeMs, text };
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // Signal 0: only checks that the process exists.
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM'; // Exists, owned by another user.
  }
}

function isStale(seen: LockSeen): boolean {
  const owner = parseOwner(seen.text);
  if (owner !== undefined && owner.host === hostname()) {
    // Our pid and thread but not a lock we hold: left by an earlier process that had our pid (a
    // container restarted as pid 1) or by this one after a failed release. Never a live writer.
    if (owner.pid === process.pid && owner.thread === threadId) return !heldLocks.has(owner.nonce);
    if (owner.pid !== process.pid && !processIsAlive(owner.pid)) return true;
  }
  // Another host, an unreadable lock, another live thread, or a live pid (perhaps reused): by age.
  return Date.now() - seen.mtimeMs > LOCK_STALE_MS;
}

/**
 * Removes the lock at `lockPath` only if it is the one `wanted` accepts: moved aside (rename), checked,
 * put back (link) when another, so no newer lock is deleted (docs/wallet.md §Credential stores).
 */
async function removeLockIf(lockPath: string, wanted: (found: LockSeen) => boolean): Promise<boolean> {
  const aside = `${lockPath}.${bytesToHex(randomBytes(8))}.old`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
  const found = await inspectLock(aside);
  const removed = found !== undefined && wanted(found);
  if (!removed) await link(aside, lockPath).catch(ignore); // EEXIST: a newer lock already took its place.
  await unlink(aside).catch(ignore);
  return removed;
}

const sameLock = (a: LockSeen, b: LockSeen): boolean => a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.text === b.text;

async function createLock(lockPath: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(lockPath, 'wx', 0o600); // O_CREAT | O_EXCL: exactly one creator wins.
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
  } catch (error) {
    await unlink(lockPath).catch(ignore); // An empty lock would block everyone for LOCK_STALE_MS.
    throw error;
  }
  return true;
}

/** Waits for the lock (breaking a stale one) and returns its nonce. */
async function acquireLock(lockPath: string): Promise<string> {
  const nonce = bytesToHex(randomBytes(16));
  const content = JSON.stringify({ pid: process.pid, thread: threadId, host: hostname(), nonce } satisfies LockOwner);
  for (let attempt = 0; ; attempt++) {
    if (await createLock(lockPath, content)) {
      heldLocks.add(nonce);
      return nonce;
    }
    const seen = await inspectLock(lockPath);
    if (seen === undefined) continue; // Released in between: try again at once.
    if (isStale(seen) && (await removeLockIf(lockPath, (found) => sameLock(found, seen)))) continue;
    // Backoff with jitter, so waiters do not retry in lockstep.
    await sleep(Math.min(LOCK_RETRY_MAX_MS, LOCK_RETRY_MIN_MS * 2 ** attempt) * (0.5 + Math.random() / 2));
  }
}

async function releaseLock(lockPath: string, nonce: string): Promise<void> {
  try {
    await removeLockIf(lockPath, (found) => parseOwner(found.text)?.nonce === nonce);
  } finally {
    heldLocks.delete(nonce);
  }
}

/** Runs `run` holding the file's lock; creates the directory (0700) the lock lives in. */
async function withFileLock<T>(path: string, run: () => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const lockPath = lockPathOf(path);
  const nonce = await acquireLock(lockPath);
  try {
    return await run();
  } finally {
    await releaseLock(lockPath, nonce);
  }
}

// ---------------------------------------------------------------------------------------------

/** A CredentialStore in the JSON file `options.path`. */
export function createFileCredentialStore(options: FileCredentialStoreOptions): CredentialStore {
  const { path } = options;
  const max = maxCredentialsOf(options);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // The key is computed once, so this object's calls enter the queue in the order they were made.
  let key: Promise<string> | undefined;
  const queued = <T>(run: () => Promise<T>): Promise<T> => (key ??= queueKey(path)).then((k) => serializeFile(k, run));
  const load = (): Promise<MandateCredential[]> => readFileRecords(path, maxFileBytes);
  const byId = (a: MandateCredential, b: MandateCredential): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  return {
    list: async () => (await load()).sort(byId),
    get: async (id) => (await load()).find((c) => c.id === id),
    async put(credential) {
      const copy = checkCredentialInput(credential);
      const fingerprint = credentialFingerprint(copy);
      // Read under the queue AND the lock: what another writer stored before is seen, so a
      // conflicting copy is CREDENTIAL_CONFLICT and no addition is written over.
      await queued(() =>
        withFileLock(path, async () => {
          const credentials = await load();
          const existing = credentials.find((c) => c.id === copy.id);
          if (existing) {
            if (credentialFingerprint(existing) !== fingerprint) throw conflict(copy.id);
            return;
          }
          if (credentials.length >= max) throw full(max);
          await writeFileRecords(path, [...credentials, copy].sort(byId));
        }),
      );
    },
    delete: (id) =>
      queued(async () => {
        // Nothing to delete needs no lock (and creates no directory): that state was observed.
        if (!(await load()).some((c) => c.id === id)) return false;
        return withFileLock(path, async () => {
          const credentials = await load();
          const kept = credentials.filter((c) => c.id !== id);
          if (kept.length === credentials.length) return false;
          await writeFileRecords(path, kept);
          return true;
        });
      }),
  };
}
