// Reading Prometheus' text exposition format (version 0.0.4), sample by sample: each line
// `name{label="value",...} value [timestamp]` becomes one sample, HELP/TYPE and other comments are
// passed over, label values are unescaped (\\, \", \n), and values keep Go's spellings of
// infinities and NaN. Histograms are simply their `_bucket` (with `le`), `_sum` and `_count`
// samples, each with its own labels, which is what a reader of several labelled histograms needs
// (parse-prometheus-text-format, used before, merged every labelled histogram of a family into one).

export interface ExpositionSample {
  name: string;
  labels: Record<string, string>;
  /** NaN and ±Inf as written; a value that is not a number is NaN. */
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/y;

function unescapeLabel(value: string): string {
  return value.includes('\\') ? value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)) : value;
}

function numberOf(text: string): number {
  switch (text) {
    case '+Inf':
    case 'Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
    default:
      return text === '' ? Number.NaN : Number(text);
  }
}

/** Every sample of the exposition, in order; a line that is not a sample or a comment is skipped. */
export function parseExposition(text: string): ExpositionSample[] {
  const samples: ExpositionSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trimStart();
    if (line === '' || line.startsWith('#')) continue;
    const name = NAME.exec(line)?.[0];
    if (name === undefined) continue;
    let at = name.length;
    // Labels are built on a null-prototype object: their names come from the server.
    const labels: Record<string, string> = Object.create(null);
    if (line[at] === '{') {
      at++;
      LABEL.lastIndex = at;
      for (let m = LABEL.exec(line); m !== null; m = LABEL.exec(line)) {
        labels[m[1]!] = unescapeLabel(m[2]!);
        at = LABEL.lastIndex;
      }
      while (line[at] === ' ') at++;
      if (line[at] !== '}') continue;
      at++;
    }
    const value = line.slice(at).trim().split(/\s+/)[0] ?? '';
    samples.push({ name, labels, value: numberOf(value) });
  }
  return samples;
}

/** The samples named `name`, grouped by a key of their labels (e.g. FlowSchema × level). */
export function samplesByKey(
  samples: readonly ExpositionSample[],
  name: string,
  keyOf: (labels: Record<string, string>) => string | undefined,
): Map<string, ExpositionSample[]> {
  const out = new Map<string, ExpositionSample[]>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const key = keyOf(s.labels);
    if (key === undefined) continue;
    const list = out.get(key);
    if (list === undefined) out.set(key, [s]);
    else list.push(s);
  }
  return out;
}
