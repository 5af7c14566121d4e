/**
 * "did you mean …?" for a mistyped command, sub-command or option: the closest known word by
 * edit distance (optimal string alignment: an insertion, deletion, substitution or swap of two
 * neighbours costs 1, so `agnets` is one edit from `agents`), if it is close enough to be a typo.
 */

/** Edits between `a` and `b` (optimal string alignment distance). */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate closest to `word`, when it is a plausible typo of it: at most 2 edits, and
 * fewer than half the word's length (so `ls` does not become `dids`). Ties go to the first.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of new Set(candidates)) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  if (best === undefined || best.distance === 0) return best?.candidate;
  return best.distance <= 2 && best.distance * 2 < typed.length ? best.candidate : undefined;
}

/** `: did you mean "<prefix>x"?`, or '' when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[], prefix = ''): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : `: did you mean "${prefix}${match}"?`;
}
