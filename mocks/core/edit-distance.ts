/**
 * Edits from `a` to `b`: insert, delete, change, or swap two neighbours (optimal string alignment), for "did you mean"
 * suggestions: the nearest route to a wrong path (inspect/near-miss.ts), the nearest key of a fault rule.
 */
export function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      let edits = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) edits = Math.min(edits, beforePrevious[j - 2]! + 1);
      current[j] = edits;
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}
