// A reader for the Prometheus text format, for tests: every sample line as name, labels, value.

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): ParsedSample[] {
  const samples: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3] === '+Inf' ? Infinity : m[3]) });
  }
  return samples;
}

/** The value of the one sample with this name and exactly these labels, or undefined. */
export function sampleValue(samples: readonly ParsedSample[], name: string, labels: Record<string, string>): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}

/** `{label value → sample value}` for a family keyed by one label. */
export function byLabel(samples: readonly ParsedSample[], name: string, label: string): Record<string, number> {
  return Object.fromEntries(samples.filter((s) => s.name === name).map((s) => [s.labels[label] ?? '', s.value]));
}
