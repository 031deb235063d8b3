// What YAML text costs to compose, measured before the yaml package composes it, so that hostile
// text is refused in time linear in its length.
//
// The yaml package's composer costs about 10 µs per node (a 1.2 MB flow sequence of 600k numbers
// held the main thread 5.5 s), and turning a document into values resolves each alias by walking
// every anchor and alias before it, so 200k anchors with their aliases take minutes. Aliases also
// multiply: nine levels of ten aliases make a billion nodes for whatever walks the value next. So
// every YAML reader (request bodies: engine/go-yaml.ts; configuration files: config/manifests.ts;
// scenarios: sim/yaml-source.ts) first runs `measureYamlCost` over the lexer's tokens (one
// generator loop, no recursion, stopping at the first bound passed), then, once composed, counts
// the nodes the aliases expand to (`aliasExpansion`, one loop over the composed tree) before any
// value is made. go-yaml bounds only depth (10,000) and the share of nodes reached through aliases
// ("document contains excessive aliasing"); the bounds below are far above anything a Kubernetes
// object or a configuration file holds (a FlowSchema is a few dozen nodes).
import { CST, isAlias, isMap, isPair, isScalar, isSeq, Lexer } from 'yaml';
import { MAX_NESTING_DEPTH } from './nesting-depth.ts';

export interface YamlCostLimits {
  /** Nesting of collections (an upper bound from the tokens, as engine/nesting-depth.ts measures it). */
  readonly depth: number;
  /** Nodes as written: scalars, aliases, collections, and each `-`, `?` and `:` indicator. */
  readonly nodes: number;
  /** `&name` anchors. */
  readonly anchors: number;
  /** `*name` aliases. */
  readonly aliases: number;
  /** Nodes once every alias stands for the node it names. */
  readonly expandedNodes: number;
}

export const YAML_COST_LIMITS: YamlCostLimits = {
  depth: MAX_NESTING_DEPTH,
  nodes: 100_000,
  anchors: 1_000,
  aliases: 1_000,
  expandedNodes: 400_000,
};

export type YamlCostBound = keyof YamlCostLimits;

export interface YamlCostExceeded {
  readonly bound: YamlCostBound;
  readonly limit: number;
  /** go-yaml's style, without its `yaml: ` prefix: `document has more than 1000 anchors`. */
  readonly message: string;
}

export interface YamlCost {
  depth: number;
  nodes: number;
  anchors: number;
  aliases: number;
}

const SCALAR_MARKER = '\u001f';

/**
 * The cost of YAML text from its tokens, or the first bound it passes (the scan stops there). The
 * depth is an upper bound: flow depth counted exactly; a block node's enclosing block collections
 * start on earlier lines at a smaller column, or at the same column (a sequence under a mapping
 * key), or on its own line (`- - x`), so at most two per distinct indentation column on its path
 * plus one per block indicator (`-`, `?`, `:`) before it on its line. Block scalars, quoted and
 * plain scalars are single tokens, so brackets inside them never count.
 */
export function measureYamlCost(text: string, limits: YamlCostLimits = YAML_COST_LIMITS): { cost: YamlCost; exceeded?: YamlCostExceeded } {
  const cost: YamlCost = { depth: 0, nodes: 0, anchors: 0, aliases: 0 };
  let flow = 0;
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
    let bound: 'nodes' | 'anchors' | 'aliases' | undefined;
    if (source === SCALAR_MARKER) {
      scalarNext = true;
      bound = 'nodes';
    } else if (type === 'single-quoted-scalar' || type === 'double-quoted-scalar') {
      bound = 'nodes';
    } else if (type === 'flow-map-start' || type === 'flow-seq-start') {
      flow++;
      bound = 'nodes';
    } else if (type === 'flow-map-end' || type === 'flow-seq-end') {
      flow = Math.max(0, flow - 1);
    } else if (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind') {
      if (flow === 0) indicators++;
      bound = 'nodes';
    } else if (type === 'anchor') {
      bound = 'anchors';
    } else if (type === 'alias') {
      cost.nodes++;
      bound = 'aliases';
    }
    if (bound !== undefined) {
      cost[bound]++;
      if (cost[bound] > limits[bound]) return { cost, exceeded: exceededBound(bound, limits) };
      if (cost.nodes > limits.nodes) return { cost, exceeded: exceededBound('nodes', limits) };
    }
    const depth = 2 * columns.length + indicators + flow;
    if (depth > cost.depth) {
      cost.depth = depth;
      if (depth > limits.depth) return { cost, exceeded: exceededBound('depth', limits) };
    }
  }
  return { cost };
}

/**
 * Counts the nodes of a composed document with every alias standing for the node it names (the
 * last node anchored so before it, as the yaml package resolves aliases), stopping past
 * `limit`. An alias inside the node it names would make a cyclic value: go-yaml refuses it, so
 * does this.
 */
export function aliasExpansion(root: unknown, limit: number = YAML_COST_LIMITS.expandedNodes): { nodes: number } | { exceeded: YamlCostExceeded } {
  // Each anchor's latest node and its size, undefined while that node is still being counted.
  const anchored = new Map<string, { size: number | undefined }>();
  // Pending work: a node to enter, or the end of an anchored node (its size is known then).
  const stack: ({ node: unknown } | { ends: { size: number | undefined }; startedAt: number })[] = [{ node: root }];
  let total = 0;
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if ('ends' in entry) {
      entry.ends.size = total - entry.startedAt;
      continue;
    }
    const { node } = entry;
    if (isAlias(node)) {
      if (!anchored.has(node.source)) {
        total++; // unresolved: composing the value reports it
      } else {
        const size = anchored.get(node.source)!.size;
        if (size === undefined) return { exceeded: { bound: 'expandedNodes', limit, message: `anchor '${node.source}' value contains itself` } };
        total += size;
      }
    } else if (isPair(node)) {
      stack.push({ node: node.value }, { node: node.key });
      continue;
    } else if (isScalar(node) || isMap(node) || isSeq(node)) {
      total++;
      const anchor = node.anchor;
      if (anchor !== undefined && anchor !== '') {
        const ends: { size: number | undefined } = { size: undefined };
        anchored.set(anchor, ends);
        stack.push({ ends, startedAt: total - 1 });
      }
      if (isMap(node) || isSeq(node)) for (let i = node.items.length - 1; i >= 0; i--) stack.push({ node: node.items[i] });
    }
    if (total > limit) return { exceeded: exceededBound('expandedNodes', { ...YAML_COST_LIMITS, expandedNodes: limit }) };
  }
  return { nodes: total };
}

const UNBOUNDED: YamlCostLimits = { depth: Infinity, nodes: Infinity, anchors: Infinity, aliases: Infinity, expandedNodes: Infinity };

/** The depth bound alone (see measureYamlCost); stops counting past `limit`. */
export function yamlNestingDepthBound(text: string, limit: number = MAX_NESTING_DEPTH): number {
  return measureYamlCost(text, { ...UNBOUNDED, depth: limit }).cost.depth;
}

function exceededBound(bound: YamlCostBound, limits: YamlCostLimits): YamlCostExceeded {
  const limit = limits[bound];
  const message =
    bound === 'expandedNodes'
      ? 'document contains excessive aliasing'
      : bound === 'depth'
        ? `document nests collections more than ${limit} levels deep`
        : `document has more than ${limit} ${bound === 'nodes' ? 'nodes' : bound}`;
  return { bound, limit, message };
}
