import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { internalError as storeInternalError, invalidResourceVersionError, notFoundError } from '../../engine/store/store-errors.ts';
import { ApiError, badRequest } from '../../engine/status/errors.ts';
import { warningHeaderValue, wantsPretty } from './respond.ts';
import { encode } from '../../engine/render/serializer.ts';
import { errorStatus } from '../engine-errors.ts';

test('warning headers escape quotes and backslashes', () => {
  assert.is(warningHeaderValue('unknown field "spec.x"'), '299 - "unknown field \\"spec.x\\""');
  assert.is(warningHeaderValue('a\\b'), '299 - "a\\\\b"');
  // Non-Latin-1 text goes out as its UTF-8 bytes; text kube refuses is dropped.
  assert.is(Buffer.from(warningHeaderValue('unknown field "é💥"')!, 'latin1').toString('utf8'), '299 - "unknown field \\"é💥\\""');
  assert.is(warningHeaderValue('lone \ud800 surrogate'), undefined);
  assert.is(warningHeaderValue('tab\there'), undefined);
});

test('pretty follows ?pretty, else curl/Wget/browsers', () => {
  assert.ok(wantsPretty(new URLSearchParams('pretty=true'), 'kubectl/v1.32'));
  assert.not.ok(wantsPretty(new URLSearchParams('pretty=junk'), 'curl/8'));
  assert.ok(wantsPretty(new URLSearchParams(), 'curl/8.5'));
  assert.not.ok(wantsPretty(new URLSearchParams(), 'kubectl/v1.32'));
});

test('encoding: JSON ends with a newline, YAML has sorted keys', () => {
  assert.is(encode({ b: 1, a: 2 }, { mediaType: 'application/json', pretty: false }), '{"b":1,"a":2}\n');
  assert.is(encode({ b: 1, a: 2 }, { mediaType: 'application/yaml', pretty: false }), 'a: 2\nb: 1\n');
});

test('errors become their Status; client input is never a 500', () => {
  assert.is(errorStatus(new ApiError(badRequest('x'))).code, 400);
  assert.is(errorStatus(notFoundError({ group: 'g', resource: 'r', kind: 'K' }, 'n')).code, 404);
  const badRv = errorStatus(invalidResourceVersionError('abc', false));
  assert.is(badRv.code, 400);
  assert.match(badRv.message!, /^resourceVersion: Invalid value: "abc"/);
  assert.is(errorStatus(storeInternalError('FW_ERR_STORE_RESOURCE_VERSION_ON_CREATE', 'resourceVersion should not be set on objects to be created')).code, 400);
  const crash = errorStatus(new TypeError('boom'));
  assert.is(crash.code, 500);
  assert.is(crash.message, 'Internal error occurred: boom');
});

test.run();
