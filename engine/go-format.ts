// Kubernetes clients match on error text that Go's fmt wrote (`%q` in particular), so messages that
// quote user input must quote it the way Go's strconv.Quote does, not the way JSON.stringify does
// (they differ for control characters and non-printable runes).

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's `strconv.Quote` / `%q` for a string. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0xd800 && cp <= 0xdfff)
      out += '\\ufffd'; // a lone surrogate is not valid UTF-8; Go sees U+FFFD
    else if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/**
 * A small `fmt.Sprintf`: `%s`/`%v`/`%d` print the argument, `%q` quotes it, `%%` is a percent sign.
 * Missing arguments print as Go prints them (`%!s(MISSING)`), so a wrong call is visible, not fatal.
 */
export function goSprintf(template: string, ...args: readonly unknown[]): string {
  let next = 0;
  return template.replace(/%([sqvd%])/g, (_match, verb: string) => {
    if (verb === '%') return '%';
    if (next >= args.length) return `%!${verb}(MISSING)`;
    const arg = args[next++];
    if (verb === 'q') return goQuote(String(arg));
    return String(arg);
  });
}
