// How deeply JSON or YAML text nests objects and lists, measured before anything parses it.
//
// Every step after parsing (duplicate-field scan, patch merges, the YAML composer, validation,
// field sets, rendering a bad value into an error) recurses once per level, and the YAML composer
// already runs out of stack near 1,000 levels of `{`. A stack overflow is not just an error: when
// it happens while V8 is compiling a regular expression, the process dies ("RegExpCompiler
// Allocation failed"), which a 20,000-level apply patch triggered in Fairway's bad-input tests.
// So request bodies (api/handlers/nesting-depth.ts) and configuration files (config/manifests.ts)
// nested deeper than MAX_NESTING_DEPTH are refused before any recursive code sees them. Both scans
// are loops (no recursion), linear in the text, and stop as soon as the limit is passed; YAML's is
// one of the bounds of engine/yaml-cost.ts.
// kube-apiserver's decoders stop at 10,000 levels; Kubernetes objects and configuration files nest
// fewer than 20, so the lower bound refuses nothing anyone has a reason to write.

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
