// A parsed YAML (or JSON) file that remembers where each value came from, so that an error about
// `flows[2].arrival.rate` can say `scenario.yaml:31:`. Scenario files are read as YAML 1.2, where
// `on` and `off` are plain words (the burst arrival uses them as keys); duplicate keys are errors.

import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import { aliasExpansion, measureYamlCost } from '../engine/yaml-cost.ts';

export type PathSegment = string | number;

/** A problem in a file: where (line when known, field path when known) and what. */
export interface SourceError {
  file: string;
  line?: number | undefined;
  path?: string;
  message: string;
}

export interface YamlSource {
  file: string;
  value: unknown;
  /** 1-based line of the value at `path`, or of its nearest existing ancestor. */
  lineOf(path: readonly PathSegment[]): number | undefined;
}

export function parseYamlSource(text: string, file: string): { source: YamlSource } | { error: SourceError } {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  // Hostile text is refused before composing it costs more than any scenario needs (engine/yaml-cost.ts).
  const { exceeded } = measureYamlCost(body);
  if (exceeded !== undefined) return { error: { file, message: `refused before parsing: the YAML ${exceeded.message}` } };
  const lineCounter = new LineCounter();
  const document: Document.Parsed = parseDocument(body, {
    lineCounter,
    prettyErrors: false,
    version: '1.2',
    uniqueKeys: true,
  });
  const first = document.errors[0];
  if (first !== undefined) {
    const { line } = lineCounter.linePos(first.pos[0]);
    return { error: { file, line, message: `invalid YAML: ${first.message.split('\n')[0]}` } };
  }
  const expansion = aliasExpansion(document.contents);
  if ('exceeded' in expansion) return { error: { file, message: `invalid YAML: ${expansion.exceeded.message}` } };
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: -1 });
  } catch (error) {
    return { error: { file, message: `invalid YAML: ${error instanceof Error ? error.message : String(error)}` } };
  }
  const lineOf = (path: readonly PathSegment[]): number | undefined => {
    for (let length = path.length; length >= 0; length--) {
      const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
      if (isNode(node) && node.range !== undefined && node.range !== null) return lineCounter.linePos(node.range[0]).line;
    }
    return undefined;
  };
  return { source: { file, value, lineOf } };
}

/** `flows[2].arrival.rate` */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

/** Splits a Kubernetes field path (`spec.rules[0].subjects[1].kind`, `metadata.annotations[a.b]`) into segments. */
export function parseFieldPath(field: string): PathSegment[] {
  const segments: PathSegment[] = [];
  const pattern = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (const match of field.matchAll(pattern)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(/^\d+$/.test(match[2]) ? Number(match[2]) : match[2]);
  }
  return segments;
}

/** `FILE:LINE: PATH: message`, dropping what is unknown. */
export function formatSourceError(error: SourceError): string {
  const where = error.line === undefined ? error.file : `${error.file}:${error.line}`;
  return error.path === undefined || error.path === '' ? `${where}: ${error.message}` : `${where}: ${error.path}: ${error.message}`;
}
