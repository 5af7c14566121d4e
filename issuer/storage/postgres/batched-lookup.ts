/**
 * Reads by key that many concurrent requests make (a list's version, a hosted DID), gathered per
 * event-loop turn into one `WHERE key = ANY($1)` statement (groupCommit). The statement is sent
 * after every call it answers was made, so each caller reads the database as it is after its
 * own request began — a revocation answered before a request is never missed by it.
 *
 * Keys in the array parameter are encoded here (textSafe encodes only plain string parameters);
 * the keys that come back are decoded by textSafe.
 */
import { groupCommit } from '../group-commit.ts';
import { encodeText } from './text.ts';

export function batchedLookup<V>(
  fetch: (keys: string[]) => Promise<Map<string, V>>,
): (key: string) => Promise<V | undefined> {
  return groupCommit(async (keys: string[]): Promise<(V | undefined)[]> => {
    const found = await fetch([...new Set(keys)].map(encodeText));
    return keys.map((key) => found.get(key));
  });
}
