// apimachinery's validators for label keys and values (util/validation: IsQualifiedName,
// IsValidLabelValue) and Go's strconv.ParseInt, with their exact texts, as the label selector
// parser reports them.
import { goParseInt64 } from '../go-integer.ts';

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function regexError(message: string, format: string, ...examples: string[]): string {
  const shown = examples.map((e) => `'${e}', `).join('or ');
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

export function qualifiedNameProblems(value: string): string[] {
  const problems: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else {
      if (utf8Length(prefix) > 253) problems.push('prefix part must be no more than 253 characters');
      if (!DNS1123_SUBDOMAIN.test(prefix)) problems.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com')}`);
    }
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix ` +
        "and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (utf8Length(name) > 63) problems.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(name)) problems.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return problems;
}

export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (utf8Length(value) > 63) problems.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) problems.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return problems;
}

/** Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, in int64 range. */
export function parseInt64(text: string): bigint | undefined {
  const value = goParseInt64(text);
  return typeof value === 'bigint' ? value : undefined;
}
