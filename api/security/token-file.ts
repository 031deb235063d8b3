// `--token-auth-file`: Kubernetes' static token file. Each CSV record is
// `token,user,uid[,"group1,group2"]`; columns after the fourth are ignored. Parsing follows Go's
// encoding/csv as kube-apiserver configures it (quoted fields with `""` escapes, fields may span
// lines, blank lines skipped, a bare `"` in an unquoted field is an error), and the token rules of
// its tokenfile package: fewer than 3 columns is an error, an empty token is skipped with a warning,
// a repeated token warns and the last one wins, and the groups column is split on commas as is
// (so an empty fourth column gives the single group "", as in Kubernetes).
import { readConfigFile } from '../../engine/config/config-file.ts';

export interface TokenUser {
  name: string;
  uid: string;
  groups: string[];
}

export type TokenFile = { ok: true; tokens: Map<string, TokenUser>; warnings: string[] } | { ok: false; error: string };

/** Parses the file's text; `path` only names the file in messages. */
export function parseTokenFile(text: string, path: string): TokenFile {
  const records = parseCsv(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if (!records.ok) return { ok: false, error: `token file '${path}': ${records.error}` };
  const tokens = new Map<string, TokenUser>();
  const warnings: string[] = [];
  let recordNumber = 0;
  for (const { fields, line } of records.records) {
    if (fields.length < 3) {
      return { ok: false, error: `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} (line ${line})` };
    }
    recordNumber++;
    const [token = '', name = '', uid = '', groups] = fields;
    if (token === '') {
      warnings.push(`empty token has been found in token file '${path}', record number '${recordNumber}' (line ${line})`);
      continue;
    }
    if (tokens.has(token)) warnings.push(`duplicate token has been found in token file '${path}', record number '${recordNumber}' (line ${line})`);
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',') });
  }
  return { ok: true, tokens, warnings };
}

/** Reads and parses the file; a missing or unreadable file is an error value, worded as Go's. */
export async function readTokenFile(path: string): Promise<TokenFile> {
  let text: string;
  try {
    text = (await readConfigFile(path)).toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file or directory'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : (error as Error).message;
    return { ok: false, error: `${code === 'EISDIR' ? 'read' : 'open'} ${path}: ${why}` };
  }
  return parseTokenFile(text, path);
}

// ---------------------------------------------------------------------------------------------
// Go encoding/csv, comma-separated, strict quotes

interface CsvRecord {
  fields: string[];
  /** 1-based line the record starts on. */
  line: number;
}

type CsvParse = { ok: true; records: CsvRecord[] } | { ok: false; error: string };

const BARE_QUOTE = 'bare " in non-quoted-field';
const BAD_QUOTE = 'extraneous or missing " in quoted-field';

/** Columns are 1-based byte offsets, as Go reports them. */
const byteColumn = (lineText: string, index: number) => Buffer.byteLength(lineText.slice(0, index)) + 1;

function parseCsv(text: string): CsvParse {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  // A trailing newline does not start another (empty) line.
  if (lines.length > 0 && lines[lines.length - 1] === '' && text.endsWith('\n')) lines.pop();
  const records: CsvRecord[] = [];
  const failAt = (startLine: number, line: number, column: number, why: string): CsvParse => ({
    ok: false,
    error:
      startLine === line
        ? `parse error on line ${line}, column ${column}: ${why}`
        : `record on line ${startLine}; parse error on line ${line}, column ${column}: ${why}`,
  });

  let index = 0;
  while (index < lines.length) {
    const startLine = index + 1;
    let lineText = lines[index]!;
    index++;
    if (lineText === '') continue;
    const fields: string[] = [];
    let pos = 0;
    let lineNumber = startLine;
    for (;;) {
      if (lineText[pos] !== '"') {
        const comma = lineText.indexOf(',', pos);
        const field = comma < 0 ? lineText.slice(pos) : lineText.slice(pos, comma);
        const quote = field.indexOf('"');
        if (quote >= 0) return failAt(startLine, lineNumber, byteColumn(lineText, pos + quote), BARE_QUOTE);
        fields.push(field);
        if (comma < 0) break;
        pos = comma + 1;
        continue;
      }
      // Quoted field: `""` is a quote; it may run over several lines.
      let value = '';
      pos++;
      for (;;) {
        const quote = lineText.indexOf('"', pos);
        if (quote < 0) {
          value += `${lineText.slice(pos)}\n`;
          if (index >= lines.length) return failAt(startLine, lineNumber, byteColumn(lineText, lineText.length), BAD_QUOTE);
          lineText = lines[index]!;
          index++;
          lineNumber++;
          pos = 0;
          continue;
        }
        value += lineText.slice(pos, quote);
        const after = lineText[quote + 1];
        if (after === '"') {
          value += '"';
          pos = quote + 2;
          continue;
        }
        if (after === undefined || after === ',') {
          pos = quote + 1;
          break;
        }
        return failAt(startLine, lineNumber, byteColumn(lineText, quote + 1), BAD_QUOTE);
      }
      fields.push(value);
      if (pos >= lineText.length) break;
      pos++; // the comma
      if (pos === lineText.length) {
        fields.push('');
        break;
      }
    }
    records.push({ fields, line: startLine });
  }
  return { ok: true, records };
}
