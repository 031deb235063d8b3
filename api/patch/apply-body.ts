// Decoding an `application/apply-patch+yaml` body as kube-apiserver does (sigs.k8s.io/yaml: YAML
// 1.1 scalars, duplicate keys allowed with the last one winning unless fieldValidation asks). JSON
// bodies, which kubectl sends, are YAML too.

import YAML, { isMap, isScalar, isSeq, LineCounter, type Node } from 'yaml';
import type { Status } from '../../engine/resources/types.ts';
import { badRequest } from '../errors.ts';
import { goJsonTypeName } from './go-json.ts';
import { isObject, type JsonObject } from './typed-value.ts';

export type ApplyBodyResult = { config: JsonObject; duplicateKeys: string[] } | { status: Status };

// Go's YAML reads timestamps into interface{} as plain strings; keep them strings here too.
const OPTIONS = {
  version: '1.1',
  uniqueKeys: false,
  // A client's odd tags must not write a warning to the server's log per request.
  logLevel: 'error',
  customTags: (tags: YAML.Tags) => tags.filter((tag) => (typeof tag === 'string' ? true : tag.tag !== 'tag:yaml.org,2002:timestamp')),
} as const;

export function decodeApplyBody(text: string): ApplyBodyResult {
  const lineCounter = new LineCounter();
  const document = YAML.parseDocument(text, { ...OPTIONS, lineCounter });
  const first = document.errors[0];
  if (first !== undefined) {
    const line = first.linePos?.[0]?.line;
    const reason = (first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return { status: badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${line === undefined ? '' : `line ${line}: `}${reason}`) };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    // Unresolved or exploding aliases surface only when the document is turned into values.
    return { status: badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${(error as Error).message}`) };
  }
  if (!isObject(value)) {
    return {
      status: badRequest(
        `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonTypeName(value)} into Go value of type map[string]interface {}`,
      ),
    };
  }
  return { config: value, duplicateKeys: duplicateKeys(document.contents, lineCounter) };
}

/** The strict-decoding text for duplicate keys, as go-yaml words it. */
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
