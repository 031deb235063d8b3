// The CEL engine shared by authorization matchConditions and ValidatingAdmissionPolicy, on top of
// @marcbachmann/cel-js (docs/auth.md says why that library). Three things differ from using the
// library directly:
//
// 1. `matches` runs on RE2 (re2js), not on JavaScript's backtracking RegExp: a policy author's
//    `'^(a+)+$'` must not stall the server (a 30-character input took seconds). The library's
//    builtin cannot be overridden, so every `x.matches(p)` call in the parsed AST is renamed to
//    our `re2Matches` before the first type check, which is when the library binds calls to
//    overloads. RE2 is also the regex dialect Kubernetes uses, so lookaheads and backreferences
//    are rejected here as they are there.
// 2. Errors are worded as cel-go's issues are (`ERROR: <input>:1:9: ...` plus a caret line), as
//    kube-apiserver prints them inside `compilation failed: ...`.
// 3. Structural limits are set (AST size, nesting depth): the library has no runtime cost budget,
//    so the size of what an expression can express is bounded instead.
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { BoundedCache } from '../bounded-cache.ts';

export const CEL_LIMITS = { maxAstNodes: 5000, maxDepth: 64, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 } as const;

const RE2_MATCHES = 're2Matches';
const compiledPatterns = new BoundedCache<string, RE2JS | Error>(256);

/** RE2 search semantics (a match anywhere, as cel-go's `matches`). */
export function re2Matches(text: string, pattern: string): boolean {
  const compiled = compiledPatterns.get(pattern, (p) => {
    try {
      return RE2JS.compile(p);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  });
  if (compiled instanceof Error) throw compiled;
  return compiled.matcher(text).find();
}

/** An Environment with the RE2 `matches` replacement and Fairway's limits; callers add variables. */
export function createCelEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true, limits: CEL_LIMITS });
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, (text: string, pattern: string) => re2Matches(text, pattern));
  return env;
}

export interface CompiledExpression {
  expression: string;
  /** The checked result type, in cel-js's spelling (`bool`, `string`, `list<string>`, `dyn`...). */
  type: string;
  /** Identifiers of fields the expression selects anywhere (`fieldSelector`, `spec`...). */
  selectedFields: ReadonlySet<string>;
  /** Evaluates against `variables`; throws on a runtime error (see `celErrorText`). */
  evaluate(variables: Record<string, unknown>): unknown;
}

export type CompileResult = { ok: true; compiled: CompiledExpression } | { ok: false; error: string };

/** Parses, rewrites `matches`, checks regex literals and type-checks; errors in cel-go's layout. */
export function compileCel(env: Environment, expression: string): CompileResult {
  let program: ReturnType<Environment['parse']>;
  try {
    program = env.parse(expression);
  } catch (error) {
    return { ok: false, error: issueText(expression, error) };
  }
  const selectedFields = new Set<string>();
  const regexProblem = rewriteMatches(program.ast, selectedFields);
  if (regexProblem !== undefined) return { ok: false, error: displayIssue(expression, regexProblem.offset, regexProblem.message) };
  const checked = program.check();
  if (!checked.valid) return { ok: false, error: issueText(expression, checked.error) };
  const evaluate = (variables: Record<string, unknown>): unknown => program(variables);
  return { ok: true, compiled: { expression, type: checked.type ?? 'dyn', selectedFields, evaluate } };
}

/** The one-line text of a runtime error, in cel-go's wording where the two differ. */
export function celErrorText(error: unknown): string {
  const summary = summaryOf(error);
  return summary.replace(/^No such key: /, 'no such key: ');
}

// ---------------------------------------------------------------------------------------------

interface Located {
  offset: number;
  message: string;
}

/** Renames `matches` calls and collects selected field names; reports a bad regex literal. */
function rewriteMatches(root: ASTNode, selectedFields: Set<string>): Located | undefined {
  let problem: Located | undefined;
  const visit = (node: ASTNode): void => {
    if (node.op === '.' || node.op === '.?') selectedFields.add(node.args[1]);
    if (node.op === 'rcall' && node.args[0] === 'matches' && node.args[2].length === 1) {
      (node.args as unknown[])[0] = RE2_MATCHES;
      const pattern = node.args[2][0]!;
      if (problem === undefined && pattern.op === 'value' && typeof pattern.args === 'string') {
        try {
          RE2JS.compile(pattern.args);
        } catch (error) {
          problem = { offset: pattern.range.start, message: summaryOf(error) };
        }
      }
    }
    forEachChild(node, visit);
  };
  visit(root);
  return problem;
}

function forEachChild(node: ASTNode, visit: (child: ASTNode) => void): void {
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isNode(value)) visit(value);
  };
  if (Array.isArray(node.args)) node.args.forEach(walk);
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string' && 'args' in value;
}

/** cel-go's names for the two issues every policy author hits first. */
function celGoWording(message: string): string {
  const unknownVariable = /^Unknown variable: (.*)$/.exec(message);
  if (unknownVariable !== null) return `undeclared reference to '${unknownVariable[1]}' (in container '')`;
  const noSuchKey = /^No such key: (.*)$/.exec(message);
  if (noSuchKey !== null) return `undefined field '${noSuchKey[1]}'`;
  return message;
}

function issueText(expression: string, error: unknown): string {
  const located = error as { node?: { pos?: number; range?: { start: number } }; range?: { start: number } } | undefined;
  const offset = located?.range?.start ?? located?.node?.range?.start ?? located?.node?.pos ?? 0;
  return displayIssue(expression, offset, celGoWording(summaryOf(error)));
}

/** `ERROR: <input>:LINE:COL: message` + the source line + a caret line of dots, as cel-go prints. */
function displayIssue(expression: string, offset: number, message: string): string {
  const before = expression.slice(0, Math.max(0, Math.min(offset, expression.length)));
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = [...expression.slice(lineStart, offset)].length;
  const sourceLine = (expression.split('\n')[line - 1] ?? '').replace(/\t/g, ' ');
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${sourceLine}\n | ${'.'.repeat(column)}^`;
}

function summaryOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { summary, message } = error as { summary?: unknown; message?: unknown };
    if (typeof summary === 'string' && summary !== '') return summary;
    if (typeof message === 'string') return message.split('\n')[0]!;
  }
  return String(error);
}
