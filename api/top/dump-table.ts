// The APF debug dumps (/debug/api_priority_and_fairness/dump_*) read as rows of named cells.
// kube-apiserver writes them as comma-separated cells aligned by Go's tabwriter; older versions end
// every line with a comma, and an exempt level is one phantom row of `<none>` cells. Cells are
// found by the header's names, so columns added or moved by a later version are read the same.

export type DumpRow = ReadonlyMap<string, string>;

/** `<none>`, as the dumps print a cell that has no value (the exempt level's). */
export const NO_VALUE = '<none>';

export function parseDump(text: string): DumpRow[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = lines[0]?.split(',').map((cell) => cell.trim());
  if (header === undefined) return [];
  return lines.slice(1).map((line) => {
    const cells = line.split(',').map((cell) => cell.trim());
    const row = new Map<string, string>();
    header.forEach((name, i) => {
      if (name !== '' && cells[i] !== undefined) row.set(name, cells[i]!);
    });
    return row;
  });
}

/** A cell as a number; undefined when missing, `<none>` or not a number. */
export function numberCell(row: DumpRow, column: string): number | undefined {
  const cell = row.get(column);
  if (cell === undefined || cell === '' || cell === NO_VALUE) return undefined;
  const value = Number(cell);
  return Number.isFinite(value) ? value : undefined;
}
