import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTokenFile, readTokenFile, type TokenFile } from './token-file.ts';

const ok = (result: TokenFile) => {
  if (!result.ok) throw new Error(result.error);
  return result;
};
const failure = (result: TokenFile) => {
  if (result.ok) throw new Error('expected an error');
  return result.error;
};

test('token,user,uid and the quoted group list', () => {
  const { tokens, warnings } = ok(parseTokenFile('abc123,admin,uid-1,"system:masters,ops"\nxyz,alice,uid-2\n', '/etc/tokens.csv'));
  assert.equal(tokens.get('abc123'), { name: 'admin', uid: 'uid-1', groups: ['system:masters', 'ops'] });
  assert.equal(tokens.get('xyz'), { name: 'alice', uid: 'uid-2', groups: [] });
  assert.equal(warnings, []);
});

test('blank lines and CRLF are tolerated; extra columns ignored; a BOM is not part of the first token', () => {
  const { tokens } = ok(parseTokenFile('\uFEFFt1,u1,1\r\n\r\n\nt2,u2,2,g,extra,more\n\n', 'f'));
  assert.equal([...tokens.keys()], ['t1', 't2']);
  assert.equal(tokens.get('t2')!.groups, ['g']);
});

test('quoted fields: escaped quotes, commas, and values over several lines', () => {
  const { tokens } = ok(parseTokenFile('"to,ken","the ""boss""",u,"a,b"\n"multi\nline",u,1\n', 'f'));
  assert.equal(tokens.get('to,ken'), { name: 'the "boss"', uid: 'u', groups: ['a', 'b'] });
  assert.ok(tokens.has('multi\nline'));
});

test('groups column is split as Kubernetes splits it, empty included', () => {
  const { tokens } = ok(parseTokenFile('t,u,1,\nt2,u,2,"a,,b"', 'f'));
  assert.equal(tokens.get('t')!.groups, ['']);
  assert.equal(tokens.get('t2')!.groups, ['a', '', 'b']);
});

test('too few columns is an error naming the file and the line', () => {
  assert.is(
    failure(parseTokenFile('t,u,1\n\nbad,row\n', '/etc/tokens.csv')),
    "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 3)",
  );
});

test('CSV syntax errors are worded as Go encoding/csv words them, with file and line', () => {
  assert.is(failure(parseTokenFile('t,u,1\nab"c,u,1\n', 'f.csv')), "token file 'f.csv': parse error on line 2, column 3: bare \" in non-quoted-field");
  assert.is(failure(parseTokenFile('"t"x,u,1\n', 'f.csv')), "token file 'f.csv': parse error on line 1, column 4: extraneous or missing \" in quoted-field");
  assert.match(
    failure(parseTokenFile('t,u,1\n"never closed,u,1\nmore\n', 'f.csv')),
    /^token file 'f\.csv': record on line 2; parse error on line 3, column \d+: extraneous or missing " in quoted-field$/,
  );
});

test('empty tokens are skipped and repeated tokens keep the last, both with warnings', () => {
  const { tokens, warnings } = ok(parseTokenFile(',nobody,0\nt,first,1\nt,second,2\n', 'f'));
  assert.equal([...tokens.entries()], [['t', { name: 'second', uid: '2', groups: [] }]]);
  assert.equal(warnings, [
    "empty token has been found in token file 'f', record number '1' (line 1)",
    "duplicate token has been found in token file 'f', record number '3' (line 3)",
  ]);
});

test('readTokenFile reads a real file and reports a missing one as Go would', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-tokens-'));
  try {
    const path = join(dir, 'tokens.csv');
    writeFileSync(path, 'secret,admin,1,system:masters\n');
    assert.equal(ok(await readTokenFile(path)).tokens.get('secret')!.groups, ['system:masters']);
    assert.is(failure(await readTokenFile(join(dir, 'missing.csv'))), `open ${join(dir, 'missing.csv')}: no such file or directory`);
    assert.is(failure(await readTokenFile(dir)), `read ${dir}: is a directory`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
