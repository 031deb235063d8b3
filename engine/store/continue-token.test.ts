import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanPath, continueAfter, decodeContinueToken, encodeContinueToken } from './continue-token.ts';
import { isStoreError } from './store-errors.ts';

const message = (token: string): string => {
  try {
    decodeContinueToken(token);
  } catch (error) {
    assert.ok(isStoreError(error));
    assert.is(error.code, 'FW_ERR_STORE_BAD_CONTINUE');
    return error.message;
  }
  return 'decoded';
};

test('tokens are unpadded base64url of kube-apiserver JSON and round-trip', () => {
  const token = continueAfter('foo', 42);
  assert.not.match(token, /[=+/]/);
  assert.is(Buffer.from(token, 'base64url').toString(), '{"v":"meta.k8s.io/v1","rv":42,"start":"foo\\u0000"}');
  assert.equal(decodeContinueToken(token), { startName: 'foo\u0000', revision: 42 });
  assert.equal(decodeContinueToken(encodeContinueToken('bar', -1)), { startName: 'bar', revision: -1 });
});

test('malformed tokens are refused with the storage texts', () => {
  assert.is(message('a*b'), 'invalid continue token: continue key is not valid: illegal base64 data at input byte 1');
  // Go's encoding/json words, never the JavaScript parser's.
  assert.is(
    message(Buffer.from('not json').toString('base64url')),
    "invalid continue token: continue key is not valid: invalid character 'o' in literal null (expecting 'u')",
  );
  assert.is(message(Buffer.from('{"v":').toString('base64url')), 'invalid continue token: continue key is not valid: unexpected end of JSON input');
  assert.is(
    message(Buffer.from('{"v":"meta.k8s.io/v2","rv":1,"start":"a"}').toString('base64url')),
    'invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2',
  );
  assert.is(message(encodeContinueToken('', 5)), 'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  assert.is(message(encodeContinueToken('a//b', 5)), 'invalid continue token: continue key is not valid: a//b');
});

test('cleanPath follows Go path.Clean for rooted paths', () => {
  assert.is(cleanPath('/a/./b/../c//d/'), '/a/c/d');
  assert.is(cleanPath('/../x'), '/x');
  assert.is(cleanPath('/'), '/');
});

test.run();
