// Reading a Prometheus text exposition in tests: `series(text, name)` gives every sample of one
// metric with its labels, so a test can ask for `priority_level="exempt"` without a parser library.
import { timedRequest, type Endpoint } from './load.ts';

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of metric `name` (exactly that name: a histogram's `_bucket` series is another name). */
export function series(text: string, name: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (match === null || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1]!] = label[2]!.replace(/\\(.)/g, '$1');
    samples.push({ labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined if none. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return series(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

/** GET /metrics as `token`. */
export async function scrape(endpoint: Endpoint, token: string): Promise<string> {
  const response = await timedRequest(endpoint, '/metrics', { token });
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status} ${response.text}`);
  return response.text;
}
