// Duplicate keys in a JSON object: JSON.parse silently keeps the last one, but kube-apiserver's
// strict decoding reports each (`duplicate field "spec.type"`), so the text is scanned once more.
// Only called on text JSON.parse has accepted, so the scanner need not report syntax errors.

/** Paths of repeated keys, in the order they appear: `spec.type`, `spec.rules[0].verbs`. */
export function findDuplicateFields(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
  const value = (path: string): void => {
    skipSpace();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const seen = new Set<string>();
      skipSpace();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skipSpace();
        const key = readString();
        if (seen.has(key)) found.push(child(path, key));
        seen.add(key);
        skipSpace();
        i++; // colon
        value(child(path, key));
        skipSpace();
        if (text[i++] === '}') return;
      }
    }
    if (ch === '[') {
      i++;
      skipSpace();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        value(`${path}[${index}]`);
        skipSpace();
        if (text[i++] === ']') return;
      }
    }
    if (ch === '"') {
      readString();
      return;
    }
    while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) i++;
  };
  value('');
  return found;
}
