// Manifest files: YAML (one or more `---` documents) or JSON, each document a Kubernetes object
// identified by apiVersion + kind. Reading never throws for bad input: every problem is a
// ManifestError value naming the file and, where known, the line, column and document.
//
// Which kinds are understood is a registry, `{apiVersion, kind} → check(document, file)`, so the
// flowcontrol kinds and, later, AdmissionConfiguration, AuthorizationConfiguration and
// EncryptionConfiguration share one reader and one report format.
//
// Faithful to kubectl's decoder: a file whose first non-blank character is `{` is JSON (a stream of
// objects), anything else is YAML. YAML is read with 1.1 rules as sigs.k8s.io/yaml (go-yaml v2)
// does: `yes`/`on` are booleans and `0755` is octal, but timestamps stay strings.

import { LineCounter, parseAllDocuments, isMap, isSeq } from 'yaml';
import type { Document } from 'yaml';
import type { FieldError } from '../resources/field-errors.ts';
import { isRecord } from '../own-property.ts';
import { readConfigFile } from './config-file.ts';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../nesting-depth.ts';
import { aliasExpansion, measureYamlCost } from '../yaml-cost.ts';

export interface ManifestDocument {
  file: string;
  /** 0-based position of the document in the file (YAML documents, or JSON objects in a stream). */
  index: number;
  /** 0-based position inside the `items` of a List document, when the object came from one. */
  item?: number | undefined;
  /** 1-based line where the object starts, when known. */
  line?: number | undefined;
  object: Record<string, unknown>;
}

export type ManifestProblem =
  | 'unreadable'
  | 'empty'
  | 'too-deep'
  | 'too-costly'
  | 'invalid-yaml'
  | 'invalid-json'
  | 'not-an-object'
  | 'invalid-list'
  | 'unknown-kind'
  | 'check-failed';

export interface ManifestError {
  file: string;
  problem: ManifestProblem;
  /** One line, without the file/position prefix. */
  message: string;
  line?: number | undefined;
  column?: number;
  index?: number;
  item?: number | undefined;
}

export interface ManifestFile {
  file: string;
  documents: ManifestDocument[];
  errors: ManifestError[];
}

/** Reads and parses one file; an unreadable file is an error value, not an exception. */
export async function readManifestFile(file: string): Promise<ManifestFile> {
  let text: string;
  try {
    text = (await readConfigFile(file)).toString('utf8');
  } catch (error) {
    return { file, documents: [], errors: [{ file, problem: 'unreadable', message: `cannot read: ${describeIoError(error)}` }] };
  }
  return parseManifests(text, file);
}

/** Splits a file's text into object documents, expanding `List` kinds into their items. */
export function parseManifests(text: string, file: string): ManifestFile {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const result: ManifestFile = { file, documents: [], errors: [] };
  const json = /^\s*\{/.test(source);
  // Parsing, checking and rendering a bad value all recurse per level: refuse deep text first; and
  // YAML whose composing would cost more than any configuration needs (engine/yaml-cost.ts).
  const exceeded = json ? undefined : measureYamlCost(source).exceeded;
  if ((json ? jsonNestingDepth(source) : 0) > MAX_NESTING_DEPTH || exceeded?.bound === 'depth') {
    result.errors.push({ file, problem: 'too-deep', message: `nests objects and lists more than ${MAX_NESTING_DEPTH} levels deep` });
    return result;
  }
  if (exceeded !== undefined) {
    result.errors.push({ file, problem: 'too-costly', message: `refused before parsing: the YAML ${exceeded.message}` });
    return result;
  }
  if (json) parseJsonStream(source, result);
  else parseYamlStream(source, result);
  if (result.documents.length === 0 && result.errors.length === 0) result.errors.push({ file, problem: 'empty', message: 'no objects found' });
  return result;
}

/**
 * `FILE:LINE:COLUMN: message` (a parse error: the position says it all), `FILE:LINE: document N:
 * message`, or `FILE: message` for the file as a whole.
 */
export function formatManifestError(error: ManifestError): string {
  if (error.line !== undefined && error.column !== undefined) return `${error.file}:${error.line}:${error.column}: ${error.message}`;
  const where = error.line === undefined ? error.file : `${error.file}:${error.line}`;
  return `${where}: ${documentLabel(error)}${error.message}`;
}

/** `document 2: ` / `document 2, item 1: ` (1-based, for people), or `''` when the error concerns the whole file. */
export function documentLabel(at: { index?: number | undefined; item?: number | undefined }): string {
  if (at.index === undefined) return '';
  return at.item === undefined ? `document ${at.index + 1}: ` : `document ${at.index + 1}, item ${at.item + 1}: `;
}

// ---------------------------------------------------------------------------------------------
// Kind registry

export interface ManifestKind {
  apiVersion: string;
  kind: string;
  /**
   * Decodes, defaults and validates one document of this kind. `file` is the manifest's path, for
   * kinds whose fields name other files relative to it.
   */
  check(document: Record<string, unknown>, file: string): FieldError[];
}

export interface ManifestRegistry {
  register(kind: ManifestKind): void;
  lookup(apiVersion: unknown, kind: unknown): ManifestKind | undefined;
  readonly kinds: readonly ManifestKind[];
}

export function createManifestRegistry(kinds: readonly ManifestKind[] = []): ManifestRegistry {
  const byKey = new Map<string, ManifestKind>();
  const key = (apiVersion: string, kind: string): string => `${apiVersion}\u0000${kind}`;
  const registry: ManifestRegistry = {
    register(entry) {
      if (byKey.has(key(entry.apiVersion, entry.kind))) throw new Error(`manifest kind ${entry.apiVersion} ${entry.kind} registered twice`);
      byKey.set(key(entry.apiVersion, entry.kind), entry);
    },
    lookup(apiVersion, kind) {
      if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
      return byKey.get(key(apiVersion, kind));
    },
    get kinds() {
      return [...byKey.values()];
    },
  };
  for (const entry of kinds) registry.register(entry);
  return registry;
}

export interface CheckedDocument {
  document: ManifestDocument;
  kind: ManifestKind;
  /** `metadata.name`, or `''` when missing or not a string. */
  name: string;
  errors: FieldError[];
}

/** Runs each document through its kind's check; unknown kinds and crashing checks become errors. */
export function checkManifests(file: ManifestFile, registry: ManifestRegistry): { checked: CheckedDocument[]; errors: ManifestError[] } {
  const checked: CheckedDocument[] = [];
  const errors: ManifestError[] = [];
  for (const document of file.documents) {
    const at = { file: document.file, line: document.line, index: document.index, item: document.item };
    const { apiVersion, kind } = document.object;
    const entry = registry.lookup(apiVersion, kind);
    if (entry === undefined) {
      errors.push({ ...at, problem: 'unknown-kind', message: unknownKindMessage(apiVersion, kind, registry) });
      continue;
    }
    const metadata = document.object.metadata;
    const name = isRecord(metadata) && typeof metadata.name === 'string' ? metadata.name : '';
    try {
      checked.push({ document, kind: entry, name, errors: entry.check(document.object, document.file) });
    } catch (error) {
      // A check is meant to turn any input into field errors; if one still throws, report it
      // against this document and carry on with the rest.
      errors.push({ ...at, problem: 'check-failed', message: `${entry.kind}: internal error while checking: ${describeError(error)}` });
    }
  }
  return { checked, errors };
}

function unknownKindMessage(apiVersion: unknown, kind: unknown, registry: ManifestRegistry): string {
  const known = registry.kinds.map((k) => `${k.apiVersion} ${k.kind}`).join(', ');
  const shown = (v: unknown): string => (v === undefined ? '(missing)' : JSON.stringify(v));
  return `unknown kind: apiVersion ${shown(apiVersion)}, kind ${shown(kind)} (known: ${known === '' ? 'none' : known})`;
}

// ---------------------------------------------------------------------------------------------
// Parsing

function parseYamlStream(source: string, result: ManifestFile): void {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(source, {
    lineCounter,
    prettyErrors: false,
    version: '1.1',
    customTags: (tags) => tags.filter((tag) => typeof tag === 'string' || tag.tag !== 'tag:yaml.org,2002:timestamp'),
  });
  // An empty stream (no documents at all) is not an array.
  if (!Array.isArray(documents)) return;
  documents.forEach((document: Document.Parsed, index) => {
    const first = document.errors[0];
    if (first !== undefined) {
      const { line, col } = lineCounter.linePos(first.pos[0]);
      result.errors.push({ file: result.file, problem: 'invalid-yaml', message: `invalid YAML: ${oneLine(first.message)}`, line, column: col, index });
      return;
    }
    // `---` with nothing after it, or a document of only comments: kubectl skips these.
    if (document.contents === null) return;
    const line = lineOf(lineCounter, document.contents.range?.[0]);
    const expansion = aliasExpansion(document.contents);
    if ('exceeded' in expansion) {
      result.errors.push({ file: result.file, problem: 'too-costly', message: `invalid YAML: ${expansion.exceeded.message}`, line, index });
      return;
    }
    let value: unknown;
    try {
      // Aliases' expansion is bounded above; the yaml package's own count walks the document per alias.
      value = document.toJS({ maxAliasCount: -1 });
    } catch (error) {
      result.errors.push({ file: result.file, problem: 'invalid-yaml', message: `invalid YAML: ${describeError(error)}`, line, index });
      return;
    }
    if (value === null || value === undefined) return;
    const itemsNode = isMap(document.contents) ? document.contents.get('items', true) : undefined;
    const itemLines = isSeq(itemsNode) ? itemsNode.items.map((node) => lineOf(lineCounter, (node as { range?: [number, number, number] }).range?.[0])) : [];
    addDocument(value, index, line, itemLines, result);
  });
}

function parseJsonStream(source: string, result: ManifestFile): void {
  let rest = source;
  let consumed = 0;
  for (let index = 0; /\S/.test(rest); index++) {
    const line = lineAndColumn(source, consumed + (rest.length - rest.trimStart().length)).line;
    const parsed = parseJsonPrefix(rest);
    if ('error' in parsed) {
      const position = parsed.position === undefined ? {} : lineAndColumn(source, consumed + parsed.position);
      result.errors.push({ file: result.file, problem: 'invalid-json', message: `invalid JSON: ${parsed.error}`, ...position, index });
      return;
    }
    addDocument(parsed.value, index, line, [], result);
    consumed += parsed.length;
    rest = rest.slice(parsed.length);
  }
}

/** Parses the first JSON value of `text`; several concatenated objects form a stream, as for kubectl. */
function parseJsonPrefix(text: string): { value: unknown; length: number } | { error: string; position?: number } {
  try {
    return { value: JSON.parse(text), length: text.length };
  } catch (error) {
    const message = describeError(error);
    const after = /^Unexpected non-whitespace character after JSON at position (\d+)/.exec(message);
    if (after !== null) {
      const length = Number(after[1]);
      return { value: JSON.parse(text.slice(0, length)), length };
    }
    const at = /^(.*?) in JSON at position (\d+)/.exec(message);
    if (at !== null) return { error: at[1]!, position: Number(at[2]) };
    if (/^Unexpected end of JSON input/.test(message)) return { error: 'unexpected end of input', position: text.trimEnd().length };
    // V8 quotes the whole input after the token; keep only the token.
    return { error: /^(Unexpected token '.*?')/s.exec(message)?.[1] ?? oneLine(message) };
  }
}

function addDocument(value: unknown, index: number, line: number | undefined, itemLines: (number | undefined)[], result: ManifestFile): void {
  const file = result.file;
  if (!isRecord(value)) {
    result.errors.push({ file, problem: 'not-an-object', message: `expected an object with apiVersion and kind, got ${describeType(value)}`, line, index });
    return;
  }
  const { kind } = value;
  if (typeof kind !== 'string' || !kind.endsWith('List')) {
    result.documents.push({ file, index, line, object: value });
    return;
  }
  // `kind: List` (apiVersion v1) holds objects of any kind; `FooList` holds Foo objects, which may
  // leave their apiVersion and kind implied.
  const items = value.items ?? [];
  if (!Array.isArray(items)) {
    result.errors.push({ file, problem: 'invalid-list', message: `${kind}: items must be a list, got ${describeType(items)}`, line, index });
    return;
  }
  const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
  items.forEach((item: unknown, position) => {
    const itemLine = itemLines[position] ?? line;
    if (!isRecord(item)) {
      result.errors.push({ file, problem: 'not-an-object', message: `expected an object, got ${describeType(item)}`, line: itemLine, index, item: position });
      return;
    }
    const object =
      itemKind !== undefined && item.kind === undefined && item.apiVersion === undefined ? { apiVersion: value.apiVersion, kind: itemKind, ...item } : item;
    result.documents.push({ file, index, item: position, line: itemLine, object });
  });
}

// ---------------------------------------------------------------------------------------------

function lineOf(lineCounter: LineCounter, offset: number | undefined): number | undefined {
  return offset === undefined ? undefined : lineCounter.linePos(offset).line;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)})`;
  return `a ${typeof value}`;
}

function describeIoError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const messages: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    EMFILE: 'too many open files',
  };
  return (typeof code === 'string' ? messages[code] : undefined) ?? describeError(error);
}

function describeError(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error));
}

function oneLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
