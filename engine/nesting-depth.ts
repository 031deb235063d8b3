// How deeply JSON or YAML text nests objects and lists, measured before anything parses it.
//
// Every step after parsing (duplicate-field scan, patch merges, the YAML composer, validation,
// field sets, rendering a bad value into an error) recurses once per level, and the YAML composer
// already runs out of stack near 1,000 levels of `{`. A stack overflow is not just an error: when
// it happens while V8 is compiling a regular expression, the process dies ("RegExpCompiler
// Allocation failed"), which a 20,000-level apply patch triggered in Fairway's bad-input tests.
// So request bodies (api/handlers/nesting-depth.ts) and configuration files (config/manifests.ts)
// nested deeper than MAX_NESTING_DEPTH are refused before any recursive code sees them. Both scans
// are loops (no recursion), linear in the text, and stop as soon as the limit is passed.
// kube-apiserver's decoders stop at 10,000 levels; Kubernetes objects and configuration files nest
// fewer than 20, so the lower bound refuses nothing anyone has a reason to write.
import { CST, Lexer } from 'yaml';

export const MAX_NESTING_DEPTH = 256;

/** The exact nesting depth of JSON text (or of its valid prefix); stops counting past `limit`. */
export function jsonNestingDepth(text: string, limit: number = MAX_NESTING_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

const SCALAR_MARKER = '\u001f';

/**
 * An upper bound of the nesting depth of YAML text, from the yaml package's lexer (a generator,
 * not recursive). Flow depth is counted exactly. A block node's enclosing block collections start
 * on earlier lines at a smaller column, or at the same column (a sequence under a mapping key), or
 * on its own line (`- - x`): so at most two per distinct indentation column on its path plus one
 * per block indicator (`-`, `?`, `:`) before it on its line. Block scalars, quoted and plain
 * scalars are single tokens, so brackets inside them never count.
 */
export function yamlNestingDepthBound(text: string, limit: number = MAX_NESTING_DEPTH): number {
  let flow = 0;
  let deepest = 0;
  let lineStart = true;
  let indent = 0;
  let indicators = 0;
  let scalarNext = false;
  const columns: number[] = [];
  const newLine = () => {
    lineStart = true;
    indent = 0;
    indicators = 0;
  };
  for (const source of new Lexer().lex(text)) {
    if (scalarNext) {
      // The scalar's own text; a block scalar's text runs to the start of the next line.
      scalarNext = false;
      if (source.endsWith('\n')) newLine();
      continue;
    }
    const type = CST.tokenType(source);
    if (type === 'newline') {
      newLine();
      continue;
    }
    if (type === 'space' || type === 'comment') {
      if (type === 'space' && lineStart) indent = source.length;
      continue;
    }
    if (lineStart) {
      lineStart = false;
      if (flow === 0) {
        while (columns.length > 0 && columns[columns.length - 1]! >= indent) columns.pop();
        columns.push(indent);
      }
    }
    if (source === SCALAR_MARKER) scalarNext = true;
    else if (type === 'flow-map-start' || type === 'flow-seq-start') flow++;
    else if (type === 'flow-map-end' || type === 'flow-seq-end') flow = Math.max(0, flow - 1);
    else if (flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind')) indicators++;
    const bound = 2 * columns.length + indicators + flow;
    if (bound > deepest) {
      deepest = bound;
      if (deepest > limit) return deepest;
    }
  }
  return deepest;
}
