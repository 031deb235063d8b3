import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isStoreError } from './store-errors.ts';
import { parseLabelSelector } from './label-selector.ts';

function errorOf(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (error) {
    assert.ok(isStoreError(error));
    assert.is(error.code, 'FW_ERR_STORE_BAD_LABEL_SELECTOR');
    assert.is(error.code, 'FW_ERR_STORE_BAD_LABEL_SELECTOR');
    return error.message;
  }
  return 'parsed';
}

test('parses every operator and prints the canonical form, sorted by key', () => {
  assert.is(parseLabelSelector('x in (foo,,baz),y,z notin ()').toString(), 'x in (,baz,foo),y,z notin ()');
  assert.is(parseLabelSelector('b==1, a!=2 ,!c').toString(), 'a!=2,b==1,!c');
  assert.is(parseLabelSelector('n>5,m<3').toString(), 'm<3,n>5');
  assert.is(parseLabelSelector('in in (in), notin notin (notin)').toString(), 'in in (in),notin notin (notin)');
  assert.ok(parseLabelSelector('').empty);
  assert.is(parseLabelSelector('a=').toString(), 'a=');
});

test('matches as Kubernetes does, including absent keys for != and notin', () => {
  const has = (selector: string, labels?: Record<string, string>) => parseLabelSelector(selector).matches(labels);
  assert.ok(has('a=b', { a: 'b' }));
  assert.not.ok(has('a=b', {}));
  assert.ok(has('a!=b', {}));
  assert.ok(has('a!=b', undefined));
  assert.not.ok(has('a!=b', { a: 'b' }));
  assert.ok(has('a in (x,y)', { a: 'y' }));
  assert.ok(has('a notin (x,y)', {}));
  assert.not.ok(has('a notin (x,y)', { a: 'x' }));
  assert.ok(has('a', { a: '' }));
  assert.not.ok(has('!a', { a: '' }));
  assert.ok(has('a in ()', { a: '' }));
  assert.ok(has('n>5', { n: '6' }));
  assert.not.ok(has('n>5', { n: '5' }));
  assert.not.ok(has('n>5', { n: 'six' }));
  assert.ok(has('n<5', { n: '-9223372036854775808' }));
  assert.ok(has('a=1,b', { a: '1', b: 'x' }));
  assert.not.ok(has('a=1,b', { a: '1' }));
  assert.not.ok(has('toString', {}), 'inherited properties are not labels');
});

test('syntax errors carry the parser text', () => {
  assert.is(errorOf('a,'), "found '', expected: identifier after ','");
  assert.is(errorOf(',a'), "found ',', expected: !, identifier, or 'end of string'");
  assert.is(errorOf('a=b c'), "found 'c', expected: ',' or 'end of string'");
  assert.is(errorOf('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  assert.is(errorOf('a in b'), "unable to parse requirement: found 'b' expected: '('");
  assert.is(errorOf('a in (b'), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.is(errorOf('a in (b c)'), "unable to parse requirement: found 'c', expected: ',' or ')'");
  assert.is(errorOf('a in (='), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  assert.is(errorOf('a=('), "unable to parse requirement: found '(', expected: identifier");
  assert.is(errorOf('!=a'), "found '!=', expected: !, identifier, or 'end of string'");
  assert.is(errorOf('!!a'), "unable to parse requirement: found '!', expected: identifier");
  assert.is(errorOf('!a=b'), "found '=', expected: ',' or 'end of string'");
});

test('keys and values are validated with apimachinery texts', () => {
  assert.is(
    errorOf('a%b=c'),
    "unable to parse requirement: <nil>: Invalid value: \"a%b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start " +
      "and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is " +
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  );
  assert.is(
    errorOf('Example.com/a=b'),
    'unable to parse requirement: <nil>: Invalid value: "Example.com/a": prefix part a lowercase RFC 1123 subdomain must consist of lower case ' +
      "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  );
  assert.is(
    errorOf('a=-b'),
    'unable to parse requirement: values[0][a]: Invalid value: "-b": a valid label must be an empty string or consist of alphanumeric characters, ' +
      "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is " +
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  );
  assert.is(errorOf(`k=${'v'.repeat(64)}`).includes('must be no more than 63 characters'), true);
  assert.is(errorOf('n>x'), "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer");
  assert.is(
    errorOf('a/b/c'),
    `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must ` +
      "start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is " +
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  );
});

test.run();
