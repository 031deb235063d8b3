// The part of Go's text/tabwriter that kube-apiserver's debug dumps use:
// `tabwriter.NewWriter(w, minwidth 8, tabwidth 0, padding 1, padchar ' ', flags 0)`.
//
// Text is cut into lines at '\n' and into cells at '\t'; a cell is tab-terminated, so the text
// after a line's last tab is not part of any column and is printed as is. A column is aligned
// over each run of consecutive lines that have a cell in it (a "column block"), to the widest
// cell plus the padding, never narrower than minwidth. Widths count Unicode code points, as Go
// counts runes.

export interface TabwriterOptions {
  minWidth: number;
  padding: number;
}

export const KUBE_DEBUG_TABWRITER: TabwriterOptions = { minWidth: 8, padding: 1 };

export function tabwrite(text: string, options: TabwriterOptions = KUBE_DEBUG_TABWRITER): string {
  const lines = text.split('\n').map((line) => line.split('\t'));
  const widths: number[] = [];
  const out: string[] = [];

  const writeLines = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const cells = lines[i]!;
      let line = '';
      cells.forEach((cell, j) => {
        line += cell;
        if (j < cells.length - 1 && j < widths.length) line += ' '.repeat(Math.max(0, widths[j]! - runeCount(cell)));
      });
      out.push(line);
    }
  };

  // Go's Writer.format: recursive over columns, one block of lines at a time.
  const format = (line0: number, line1: number) => {
    const column = widths.length;
    let start = line0;
    for (let current = line0; current < line1; current++) {
      if (column >= lines[current]!.length - 1) continue;
      writeLines(start, current);
      start = current;
      let width = options.minWidth;
      for (; current < line1; current++) {
        const cells = lines[current]!;
        if (column >= cells.length - 1) break;
        width = Math.max(width, runeCount(cells[column]!) + options.padding);
      }
      widths.push(width);
      format(start, current);
      widths.pop();
      // `current` is the first line without this column (the loop's increment skips it, as in Go:
      // it could not start a block of this column anyway).
      start = current;
    }
    writeLines(start, line1);
  };

  format(0, lines.length);
  return out.join('\n');
}

function runeCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
