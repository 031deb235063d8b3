// Label selectors with Kubernetes' grammar and Kubernetes' error texts (apimachinery
// `labels.Parse`), so `?labelSelector=` behaves and fails as it does on kube-apiserver:
//
//   selector    ::= requirement ("," requirement)*
//   requirement ::= ["!"] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
//
// The lexer scans the whole input first, then a recursive-descent parser walks the tokens; `in` and
// `notin` are keywords only where an operator is expected, so `in in (in)` is a valid selector.

import { invalid, formatFieldErrors, type FieldError } from '../resources/field-errors.ts';
import { labelValueProblems, parseInt64, qualifiedNameProblems } from './label-validation.ts';
import { badRequestError } from './store-errors.ts';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted, without duplicates (Kubernetes keeps them in a string set). */
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** Sorted by key, as Kubernetes sorts them. */
  readonly requirements: readonly LabelRequirement[];
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** Kubernetes' canonical text (`a=b,c in (d,e),!f`). */
  toString(): string;
}

/** Parses a label selector; a syntax error is a BadRequest StoreError carrying the parser's text. */
export function parseLabelSelector(text: string): LabelSelector {
  const result = parseRequirements(text);
  if (typeof result === 'string') throw badRequestError('FW_ERR_STORE_BAD_LABEL_SELECTOR', result);
  return makeSelector(result);
}

export const EVERYTHING_LABELS: LabelSelector = makeSelector([]);

export function labelRequirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(labels[r.key]!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const actual = parseInt64(labels[r.key]!);
      const bound = r.values.length === 1 ? parseInt64(r.values[0]!) : undefined;
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function makeSelector(requirements: LabelRequirement[]): LabelSelector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements: sorted,
    empty: sorted.length === 0,
    matches: (labels) => sorted.every((r) => labelRequirementMatches(r, labels)),
    toString: () => sorted.map(requirementText).join(','),
  };
}

function requirementText(r: LabelRequirement): string {
  const values = r.values.join(',');
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Lexer

type Token = 'error' | 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

const LITERAL_TOKENS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

interface Scanned {
  token: Token;
  literal: string;
}

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c) && c !== '';

/** Scans every token up to the end of input. A NUL ends the input, as in Go's byte lexer. */
function scanAll(text: string): Scanned[] {
  const items: Scanned[] = [];
  let pos = 0;
  const read = (): string => (pos < text.length ? text[pos++]! : '\0');
  for (;;) {
    let c = read();
    while (isWhitespace(c)) c = read();
    if (c === '\0') {
      items.push({ token: 'end', literal: '' });
      return items;
    }
    pos--;
    if (isSpecial(c)) {
      // Longest special-symbol run that still forms a token ("!=" rather than "!" then "=").
      let buffer = '';
      let last: Scanned | undefined;
      for (;;) {
        const ch = read();
        if (ch === '\0') break;
        if (!isSpecial(ch)) {
          pos--;
          break;
        }
        buffer += ch;
        const token = LITERAL_TOKENS.get(buffer);
        if (token !== undefined) last = { token, literal: buffer };
        else if (last !== undefined) {
          pos--;
          break;
        }
      }
      items.push(last ?? { token: 'error', literal: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      for (;;) {
        const ch = read();
        if (ch === '\0') break;
        if (isSpecial(ch) || isWhitespace(ch)) {
          pos--;
          break;
        }
        buffer += ch;
      }
      items.push({ token: LITERAL_TOKENS.get(buffer) ?? 'identifier', literal: buffer });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Parser

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

/** Returns the requirements, or the error text. */
function parseRequirements(text: string): LabelRequirement[] | string {
  const items = scanAll(text);
  let position = 0;
  // In a value position the keywords `in`/`notin` are plain identifiers.
  const asValue = (s: Scanned): Scanned => (s.token === 'in' || s.token === 'notin' ? { token: 'identifier', literal: s.literal } : s);
  const lookahead = (values: boolean): Scanned => (values ? asValue(items[position]!) : items[position]!);
  const consume = (values: boolean): Scanned => {
    const s = items[position]!;
    position = Math.min(position + 1, items.length - 1);
    return values ? asValue(s) : s;
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const next = lookahead(true);
    if (next.token === 'end') return requirements;
    if (next.token !== 'identifier' && next.token !== '!') return `found '${next.literal}', expected: !, identifier, or 'end of string'`;
    const requirement = parseRequirement();
    if (typeof requirement === 'string') return `unable to parse requirement: ${requirement}`;
    requirements.push(requirement);
    const after = consume(true);
    if (after.token === 'end') return requirements;
    if (after.token !== ',') return `found '${after.literal}', expected: ',' or 'end of string'`;
    const following = lookahead(true);
    if (following.token !== 'identifier' && following.token !== '!') {
      return `found '${following.literal}', expected: identifier after ','`;
    }
  }

  function parseRequirement(): LabelRequirement | string {
    let operator: LabelOperator | undefined;
    let first = consume(true);
    if (first.token === '!') {
      operator = '!';
      first = consume(true);
    }
    if (first.token !== 'identifier') return `found '${first.literal}', expected: identifier`;
    const key = first.literal;
    const keyProblems = qualifiedNameProblems(key);
    if (keyProblems.length > 0) return formatFieldErrors([invalid('<nil>', key, keyProblems.join('; '))]);
    // `!key` is complete by itself; whatever follows must be ',' or the end (checked by the caller).
    if (operator === '!') return newRequirement(key, '!', []);
    const peek = lookahead(true).token;
    if (peek === 'end' || peek === ',') return newRequirement(key, 'exists', []);
    const opToken = consume(false);
    const binary = operatorFor(opToken.token);
    if (binary === undefined) return `found '${opToken.literal}', expected: ${BINARY_OPERATORS}`;
    const values = binary === 'in' || binary === 'notin' ? parseValues() : parseExactValue();
    if (typeof values === 'string') return values;
    return newRequirement(key, binary, [...new Set(values)].sort());
  }

  function parseValues(): string[] | string {
    const open = consume(true);
    if (open.token !== '(') return `found '${open.literal}' expected: '('`;
    const peek = lookahead(true);
    if (peek.token === ')') {
      consume(true);
      return [''];
    }
    if (peek.token !== 'identifier' && peek.token !== ',') return `found '${peek.literal}', expected: ',', ')' or identifier`;
    const values: string[] = [];
    for (;;) {
      const item = consume(true);
      if (item.token === 'identifier') {
        values.push(item.literal);
        const after = lookahead(true);
        if (after.token === ',') continue;
        if (after.token === ')') break;
        return `found '${after.literal}', expected: ',' or ')'`;
      }
      if (item.token === ',') {
        if (values.length === 0) values.push('');
        const after = lookahead(true).token;
        if (after === ')') {
          values.push('');
          break;
        }
        if (after === ',') {
          consume(true);
          values.push('');
        }
        continue;
      }
      return `found '${item.literal}', expected: ',', or identifier`;
    }
    if (consume(true).token !== ')') return `found '${peek.literal}', expected: ')'`;
    return values;
  }

  function parseExactValue(): string[] | string {
    const peek = lookahead(true).token;
    if (peek === 'end' || peek === ',') return [''];
    const value = consume(true);
    if (value.token === 'identifier') return [value.literal];
    return `found '${value.literal}', expected: identifier`;
  }
}

function operatorFor(token: Token): LabelOperator | undefined {
  switch (token) {
    case 'in':
      return 'in';
    case 'notin':
      return 'notin';
    case '=':
      return '=';
    case '==':
      return '==';
    case '!=':
      return '!=';
    case '>':
      return 'gt';
    case '<':
      return 'lt';
    default:
      return undefined;
  }
}

/** NewRequirement's checks, reported as an aggregate of field errors. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement | string {
  const errors: FieldError[] = [];
  const keyProblems = qualifiedNameProblems(key);
  if (keyProblems.length > 0) errors.push(invalid('key', key, keyProblems.join('; ')));
  if ((operator === 'gt' || operator === 'lt') && values.length === 1 && parseInt64(values[0]!) === undefined) {
    errors.push(invalid('values[0]', values[0], "for 'Gt', 'Lt' operators, the value must be an integer"));
  }
  values.forEach((value, i) => {
    const problems = labelValueProblems(value);
    if (problems.length > 0) errors.push(invalid(`values[${i}][${key}]`, value, problems.join('; ')));
  });
  if (errors.length > 0) return formatFieldErrors(errors);
  return { key, operator, values };
}
