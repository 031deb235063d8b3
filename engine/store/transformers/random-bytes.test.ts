import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUuid, secureRandomBytes } from './random-bytes.ts';
import { queuedRandom } from './testing/fixed-random.ts';

test('a version-4 UUID from 16 bytes: version and variant bits set, the rest kept', () => {
  assert.is(randomUuid(queuedRandom(new Uint8Array(16).fill(0xff))), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
  assert.is(randomUuid(queuedRandom(new Uint8Array(16))), '00000000-0000-4000-8000-000000000000');
});

test('the OS source gives the asked size and differs between calls', () => {
  const a = secureRandomBytes(32);
  assert.is(a.length, 32);
  assert.is.not(Buffer.from(a).toString('hex'), Buffer.from(secureRandomBytes(32)).toString('hex'));
});

test.run();
