// The frame every simulator page shares (report, sweep summary, comparison): one self-contained
// HTML document with inline CSS and no scripts. Tables fit the page: headers and name cells wrap
// rather than pushing columns out of sight, so nothing hides behind a scroll bar at 1400 px.

import { esc } from './format.ts';

const CSS = `body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1320px;padding:0 1em;color:#222;line-height:1.45}
h1{margin-bottom:.2em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}h3{margin-top:1.2em}
.lead{font-size:1.1em}.meta{color:#555;margin:.2em 0}.note{color:#555;font-size:.92em}.dim{color:#888}
code{background:#f4f4f4;padding:0 .3em;border-radius:3px;overflow-wrap:anywhere}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:.85em;max-width:100%}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0;width:100%;table-layout:auto}
th,td{border:1px solid #ddd;padding:.25em .45em;text-align:right;vertical-align:top}
th{background:#f6f6f6;font-weight:600}
td{white-space:nowrap}td.name,td.wrap{white-space:normal;overflow-wrap:break-word;text-align:left}td.num{text-align:right;overflow-wrap:normal}
td:first-child,th:first-child{text-align:left}
.warn{background:#fff6e0;border:1px solid #f0c36d;padding:.5em 1em;margin:1em 0}
.better{color:#1a7f37;font-weight:600}.worse{color:#c62828;font-weight:600}.noise{color:#777}
.new{color:#9a5b00;font-weight:600}.removed{color:#555;font-weight:600}
.findings li{margin:.25em 0}figure{margin:1.5em 0;max-width:100%;overflow-x:auto}figcaption{margin-bottom:.4em;color:#333}
svg{max-width:100%;height:auto}figure svg{width:100%}
.swatch{display:inline-block;width:.75em;height:.75em;margin-right:.3em;border-radius:2px;vertical-align:-.05em}
dt{font-weight:bold;margin-top:.5em}dd{margin-left:1.5em}
details{margin:.5em 0}summary{cursor:pointer}`;

export function page(title: string, body: readonly string[]): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(title)}</title><style>` +
    `${CSS}</style></head><body>\n${body.join('\n')}\n</body></html>\n`
  );
}

/**
 * A table; cells are HTML. `nameColumns` are the indexes of columns that hold names (they wrap
 * and align left).
 */
export function table(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  nameColumns: readonly number[] = [0],
  options: { wrap?: boolean } = {},
): string {
  const names = new Set(nameColumns);
  const other = options.wrap === true ? '<td class="wrap num">' : '<td>';
  const cell = (c: string, i: number) => (names.has(i) ? `<td class="name">${c}</td>` : `${other}${c}</td>`);
  return (
    `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>` +
    `${rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('')}</tbody></table>`
  );
}

export function stripXmlHeader(svg: string): string {
  return svg.replace(/^<\?xml[^>]*>\s*/, '');
}
