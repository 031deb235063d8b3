// YAML as kube-apiserver writes it (sigs.k8s.io/yaml: JSON's value converted, map keys sorted, no
// line folding, a shared value written out in full, never as an anchor and alias), and the same
// text as one item of a list's `items:` sequence, so that a YAML LIST can be each object's cached
// item text between a head and a tail, byte for byte what writing the whole list would give.
import { stringify } from 'yaml';

const OPTIONS = { sortMapEntries: true, lineWidth: 0, aliasDuplicateObjects: false } as const;

export function yamlText(value: unknown): string {
  return stringify(value, OPTIONS);
}

/**
 * An object's YAML as an item of a top-level mapping's sequence: `  - ` before its first line, four
 * spaces before every other non-empty line. The emitter indents a nested node by its depth and
 * nothing else (block scalars' indentation is relative to their key; an empty line inside one is
 * written empty), so this is the text it writes for that item inside the list.
 */
export function yamlListItem(objectYaml: string): string {
  let out = '  - ';
  let start = 0;
  for (let end = objectYaml.indexOf('\n'); end !== -1; end = objectYaml.indexOf('\n', start)) {
    if (start > 0 && end > start) out += '    ';
    out += objectYaml.slice(start, end + 1);
    start = end + 1;
  }
  return out;
}

/** A list's YAML around its items: what comes before the first item and after the last (keys sorted: apiVersion, items, kind, metadata). */
export function yamlListFrame(list: { apiVersion: string; kind: string; metadata: unknown }): { head: string; tail: string } {
  return { head: `${yamlText({ apiVersion: list.apiVersion })}items:\n`, tail: yamlText({ kind: list.kind, metadata: list.metadata }) };
}
