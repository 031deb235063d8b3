// The flag a mistyped name most likely meant, for "unknown flag: --secure-prot; did you mean
// --secure-port?": the one name that has the given words in it (`--port` → `--secure-port`), else
// the nearest name by edit distance when it is near enough to be a typo.

export function closestFlag(unknown: string, names: readonly string[]): string | undefined {
  const containing = names.filter((name) => `-${name}-`.includes(`-${unknown}-`));
  if (containing.length === 1) return containing[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of names) {
    const distance = editDistance(unknown, name);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  // One or two letters are too short to tell a typo from another word.
  return best !== undefined && unknown.length >= 3 && bestDistance <= Math.max(2, Math.floor(unknown.length / 4)) ? best : undefined;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = row;
  }
  return previous[b.length]!;
}
