import { test } from 'uvu';
import { parseGoJson } from '../go-json.ts';
import * as assert from 'uvu/assert';
import { decodeObject } from './decode.ts';
import { statusOf } from '../status/testing/status-of.ts';

const target = { kind: 'PriorityLevelConfiguration', apiVersion: 'flowcontrol.apiserver.k8s.io/v1' };
const body = { metadata: { name: 'a' }, spec: { type: 'Exempt', extra: true }, bogus: 1 };

test('Warn drops unknown fields and returns one warning each; type meta is filled in', () => {
  const decoded = decodeObject({ value: structuredClone(body) }, target, 'Warn');
  assert.equal(decoded.warnings, ['unknown field "spec.extra"', 'unknown field "bogus"']);
  assert.equal(decoded.object, { metadata: { name: 'a' }, spec: { type: 'Exempt' }, kind: target.kind, apiVersion: target.apiVersion });
  assert.equal(decodeObject({ value: structuredClone(body) }, target, 'Ignore').warnings, []);
});

test('Strict fails with every problem, duplicates included', () => {
  const text = '{"metadata":{"name":"a"},"spec":{"type":"Exempt","type":"Exempt","extra":1}}';
  const status = statusOf(() => decodeObject({ value: JSON.parse(text), duplicates: ['duplicate field "spec.type"'] }, target, 'Strict'));
  assert.is(status.code, 400);
  assert.is(
    status.message,
    'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: strict decoding error: unknown field "spec.extra",' +
      ' duplicate field "spec.type"',
  );
});

test("YAML's repeated keys: go-yaml's text first under Strict, on one line as a warning under Warn", () => {
  const yamlDuplicates = ['error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key "type" already set in map'];
  const status = statusOf(() => decodeObject({ value: structuredClone(body), yamlDuplicates }, target, 'Strict'));
  assert.is(
    status.message,
    'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: strict decoding error: error converting YAML to ' +
      'JSON: yaml: unmarshal errors:\n  line 3: key "type" already set in map, unknown field "spec.extra", unknown field "bogus"',
  );
  assert.equal(decodeObject({ value: structuredClone(body), yamlDuplicates }, target, 'Warn').warnings, [
    'error converting YAML to JSON: yaml: unmarshal errors: line 3: key "type" already set in map',
    'unknown field "spec.extra"',
    'unknown field "bogus"',
  ]);
});

test('wrong types, kinds, versions and non-objects are 400s', () => {
  assert.match(
    statusOf(() => decodeObject({ value: { spec: { type: 5 } } }, target, 'Ignore')).message!,
    /cannot unmarshal number into Go struct field PriorityLevelConfiguration\.spec\.type of type string/,
  );
  assert.is(
    statusOf(() => decodeObject({ value: { apiVersion: 'v1' } }, target, 'Warn')).message,
    'the API version in the data (v1) does not match the expected API version (flowcontrol.apiserver.k8s.io/v1)',
  );
  assert.match(
    statusOf(() => decodeObject({ value: { kind: 'FlowSchema' } }, target, 'Warn')).message!,
    /^FlowSchema in version "v1" cannot be handled as a PriorityLevelConfiguration/,
  );
  assert.is(statusOf(() => decodeObject({ value: [] }, target, 'Warn')).code, 400);
  assert.is(statusOf(() => decodeObject({ value: undefined }, target, 'Warn')).code, 400);
});

/** What body.ts hands decodeObject for JSON text. */
function fromJson(text: string) {
  const parsed = parseGoJson(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return { value: parsed.value, numberLiterals: parsed.numberLiterals };
}

test('an integer field written with an exponent or a fraction is refused as Go refuses it, even when it parses to an integer', () => {
  const plc = (shares: string) =>
    `{"metadata":{"name":"a"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":${shares},"limitResponse":{"type":"Reject"}}}}`;
  const message = (shares: string) => {
    const text = plc(shares);
    return statusOf(() => decodeObject(fromJson(text), target, 'Strict')).message;
  };
  const prefix = 'PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: json: cannot unmarshal number ';
  const suffix = ' into Go struct field PriorityLevelConfiguration.spec.limited.nominalConcurrencyShares of type int32';
  for (const literal of ['5e3', '1e-400', '5.0', '1E3', '-0.0', '2147483648', '99999999999999999999']) {
    assert.is(message(literal), `${prefix}${literal}${suffix}`, literal);
  }
  const plain = plc('5000');
  assert.is((decodeObject(fromJson(plain), target, 'Strict').object.spec as any).limited.nominalConcurrencyShares, 5000);
  // A number in a string field is a plain type error; Go does not name it.
  const inString = '{"metadata":{"name":"a"},"spec":{"type":5e3}}';
  assert.match(
    statusOf(() => decodeObject(fromJson(inString), target, 'Strict')).message!,
    /cannot unmarshal number into Go struct field PriorityLevelConfiguration\.spec\.type of type string$/,
  );
});

test.run();
