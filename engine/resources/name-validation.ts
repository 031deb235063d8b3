// The string grammars of k8s.io/apimachinery (util/validation): DNS-1123 labels and subdomains,
// qualified names (label and annotation keys) and label values. Each check returns the list of
// messages apimachinery would return, worded exactly as kube-apiserver prints them, because
// clients and tests match on that text. Lengths are byte lengths, as Go's `len` counts them.

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERROR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERROR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_ERROR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX_LENGTH = 63;

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERROR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;

const dns1123Label = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const qualifiedName = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** A validator of object names; `prefix` is true for `generateName`, which gets a suffix appended. */
export type NameValidator = (name: string, prefix: boolean) => string[];

export function isDns1123Label(value: string): string[] {
  const messages: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) messages.push(maxLengthError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123Label.test(value)) {
    // Every label is a subdomain, so a valid subdomain that is no label can only be wrong by its dots.
    if (dns1123Subdomain.test(value)) messages.push('must not contain dots');
    else messages.push(regexError(DNS1123_LABEL_ERROR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return messages;
}

export function isDns1123Subdomain(value: string): string[] {
  const messages: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) messages.push(maxLengthError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123Subdomain.test(value)) messages.push(regexError(DNS1123_SUBDOMAIN_ERROR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return messages;
}

/** A label or annotation key: `name` or `prefix/name`, the prefix a DNS subdomain. */
export function isQualifiedName(value: string): string[] {
  const messages: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) messages.push(`prefix part ${EMPTY_ERROR}`);
    else messages.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERROR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) messages.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) messages.push(`name part ${maxLengthError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedName.test(name)) messages.push(`name part ${regexError(QUALIFIED_NAME_ERROR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return messages;
}

export function isValidLabelValue(value: string): string[] {
  const messages: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) messages.push(maxLengthError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValue.test(value)) messages.push(regexError(LABEL_VALUE_ERROR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return messages;
}

/** apimachinery's `NameIsDNSSubdomain`: the name rule of both flowcontrol kinds (and of service accounts). */
export const nameIsDnsSubdomain: NameValidator = (name, prefix) => isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** apimachinery's `NameIsDNSLabel`: the rule for namespace names. */
export const nameIsDnsLabel: NameValidator = (name, prefix) => isDns1123Label(prefix ? maskTrailingDash(name) : name);

/**
 * A generateName may end in '-' because a random suffix follows. Upstream swaps the last *two*
 * characters for one 'a' (`name[:len-2] + "a"`); kept as is so the same prefixes pass and fail.
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

const EMPTY_ERROR = 'must be non-empty';

function maxLengthError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** apimachinery's `RegexError`, including its doubled space before each " or ". */
function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const shown = examples.map((e, i) => `${i > 0 ? ' or ' : ''}'${e}', `).join('');
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

export function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}
