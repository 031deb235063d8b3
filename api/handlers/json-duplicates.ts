// What JSON.parse loses and Go's decoder sees, found in one more scan of the text:
// - duplicate keys in an object: JSON.parse keeps the last one, but kube-apiserver's strict
//   decoding reports each (`duplicate field "spec.type"`);
// - how a number was written: `5e3`, `5.0` and `1e-400` parse to the integers 5000, 5 and 0, but
//   Go refuses them for an integer field (`cannot unmarshal number 5e3 into ... of type int32`).
// Only called on text JSON.parse has accepted, so the scanner need not report syntax errors.

export interface JsonTextFindings {
  /** Paths of repeated keys, in the order they appear: `spec.type`, `spec.rules[0].verbs`. */
  duplicates: string[];
  /**
   * The literal of every number not written as a short plain integer (a fraction, an exponent, or
   * more than 15 digits), by path; empty for almost every body.
   */
  numberLiterals: Map<string, string>;
}

/** Paths of repeated keys, in the order they appear: `spec.type`, `spec.rules[0].verbs`. */
export function findDuplicateFields(text: string): string[] {
  return scanJsonText(text).duplicates;
}

export function scanJsonText(text: string): JsonTextFindings {
  const found: string[] = [];
  const numberLiterals = new Map<string, string>();
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
    const start = i;
    let plainInteger = true;
    while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) {
      const c = text.charCodeAt(i);
      if (c === 46 || c === 101 || c === 69) plainInteger = false; // . e E
      i++;
    }
    const isNumber = ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9');
    if (isNumber && (!plainInteger || i - start > 15)) numberLiterals.set(path, text.slice(start, i));
  };
  value('');
  return { duplicates: found, numberLiterals };
}
