// YAML request bodies read as kube-apiserver reads them (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1
// scalars (`yes` is true), timestamps left as strings, repeated keys allowed with the last one
// winning, but listed, because strict field validation reports them as go-yaml words them
// (`line 4: key "name" already set in map`). Errors read `yaml: line N: …`, the form go-yaml uses.
// Text whose cost passes a bound of engine/yaml-cost.ts is refused before it is composed.

import YAML, { isMap, isScalar, isSeq, LineCounter, type Node } from 'yaml';
import { aliasExpansion, measureYamlCost, type YamlCostBound } from './yaml-cost.ts';

const OPTIONS = {
  version: '1.1',
  uniqueKeys: false,
  // A client's odd tags must not write a warning to the server's log per request.
  logLevel: 'error',
  customTags: (tags: YAML.Tags) => tags.filter((tag) => (typeof tag === 'string' ? true : tag.tag !== 'tag:yaml.org,2002:timestamp')),
} as const;

/** `bound`: the text was refused for its cost (yaml-cost.ts), not for its syntax. */
export type GoYamlResult = { ok: true; value: unknown; duplicateKeys: string[] } | { ok: false; error: string; bound?: YamlCostBound };

/** The value of a YAML document (undefined for an empty one) and its repeated keys; or go-yaml's error text. */
export function parseGoYaml(text: string): GoYamlResult {
  const { exceeded } = measureYamlCost(text);
  if (exceeded !== undefined) return { ok: false, error: `yaml: ${exceeded.message}`, bound: exceeded.bound };
  const lineCounter = new LineCounter();
  const document = YAML.parseDocument(text, { ...OPTIONS, lineCounter });
  const first = document.errors[0];
  if (first !== undefined) {
    const line = first.linePos?.[0]?.line;
    const reason = (first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return { ok: false, error: `yaml: ${line === undefined ? '' : `line ${line}: `}${reason}` };
  }
  const expansion = aliasExpansion(document.contents);
  if ('exceeded' in expansion) return { ok: false, error: `yaml: ${expansion.exceeded.message}`, bound: expansion.exceeded.bound };
  try {
    // Unresolved aliases surface only when the document is turned into values. Their expansion is
    // bounded above, so the yaml package's own count (which walks the document per alias) is off.
    const value: unknown = document.toJS({ maxAliasCount: -1 });
    return { ok: true, value: value ?? undefined, duplicateKeys: duplicateKeys(document.contents, lineCounter) };
  } catch (error) {
    return { ok: false, error: `yaml: ${(error as Error).message}` };
  }
}

/** The strict-decoding text for repeated keys, as sigs.k8s.io/yaml's YAMLToJSONStrict words it. */
export function strictYamlError(duplicateKeys: readonly string[]): string {
  return `error converting YAML to JSON: yaml: unmarshal errors:\n${duplicateKeys.map((entry) => `  ${entry}`).join('\n')}`;
}

function duplicateKeys(root: Node | null | undefined, lineCounter: LineCounter): string[] {
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : JSON.stringify(pair.key);
        if (seen.has(key)) {
          const offset = isScalar(pair.key) ? (pair.key.range?.[0] ?? 0) : 0;
          out.push(`line ${lineCounter.linePos(offset).line}: key ${JSON.stringify(key)} already set in map`);
        }
        seen.add(key);
        walk(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  walk(root);
  return out;
}
