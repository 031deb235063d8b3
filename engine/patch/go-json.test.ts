import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { goFormatValue, parseGoJson } from './go-json.ts';

const errorOf = (text: string): string => {
  const result = parseGoJson(text);
  if (!('error' in result)) throw new Error(`parsed: ${text}`);
  return result.error;
};

test("syntax errors read exactly as Go's encoding/json writes them", () => {
  const cases: Array<[string, string]> = [
    ['', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['{,}', "invalid character ',' looking for beginning of object key string"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{} {}', "invalid character '{' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.e3', "invalid character 'e' after decimal point in numeric literal"],
    ['1e+', 'unexpected end of JSON input'],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['tru', 'unexpected end of JSON input'],
    ['nul!', "invalid character '!' in literal null (expecting 'l')"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ];
  for (const [text, message] of cases) assert.is(errorOf(text), message, text);
});

test('duplicate fields are reported with their path; the last value wins', () => {
  const result = parseGoJson('{"spec":{"type":"A","rules":[{"x":1,"x":2}],"type":"B"},"spec2":1}');
  assert.ok('value' in result);
  assert.equal(result.duplicates, ['spec.rules[0].x', 'spec.type']);
  assert.equal((result.value as any).spec, { type: 'B', rules: [{ x: 2 }] });
});

test("goFormatValue prints Go's %v of decoded JSON", () => {
  assert.is(goFormatValue({ b: [1, 'x'], a: { c: null } }), 'map[a:map[c:<nil>] b:[1 x]]');
  assert.is(goFormatValue(true), 'true');
});

test('property: anything JSON.stringify writes is accepted and read back unchanged', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value);
      const result = parseGoJson(text);
      assert.ok('value' in result, text);
      assert.equal(result.value, JSON.parse(text));
      assert.equal(result.duplicates, []);
    }),
  );
});

test('property: text JSON.parse refuses is refused here too', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), (text) => {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      assert.is('value' in parseGoJson(text), valid, text);
    }),
  );
});

test.run();
