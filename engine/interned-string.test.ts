import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { internString } from './interned-string.ts';

test('an interned string equals its input, also for names that look like indices or are empty', () => {
  const target = `/apis/flowcontrol.apiserver.${['k8s', 'io'].join('.')}/v1/prioritylevelconfigurations/x`;
  for (const text of target.split('/').concat(['0', '42', '4294967295', '-1', '__proto__', 'constructor', ''])) assert.is(internString(text), text);
});

test('strings of equal content from a slice, a concatenation and a literal intern to that content', () => {
  const sliced = '/apis/flowcontrol.apiserver.k8s.io/v1'.slice(6, 34);
  const joined = ['flowcontrol', 'apiserver', 'k8s', 'io'].join('.');
  for (const text of [sliced, joined]) assert.is(internString(text), 'flowcontrol.apiserver.k8s.io');
});

test.run();
