import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EncryptedObject } from './encrypted-object.ts';
import { decodeEncryptedObject, encodeEncryptedObject } from './encrypted-object.ts';
import { toHex } from './testing/fixed-random.ts';

const sample = (overrides: Partial<EncryptedObject> = {}): EncryptedObject => ({
  encryptedData: Uint8Array.of(1, 2, 3),
  keyId: 'k',
  encryptedDekSource: Uint8Array.of(9),
  annotations: new Map(),
  encryptedDekSourceType: 1,
  ...overrides,
});

test('protobuf wire bytes: fields 1, 2, 3 length-delimited, 5 a varint', () => {
  assert.is(toHex(encodeEncryptedObject(sample())), '0a03010203' + '12016b' + '1a0109' + '2801');
});

test('proto3: source type 0 (AES_GCM_KEY) is not written; map entries are key=1, value=2', () => {
  const bytes = encodeEncryptedObject(sample({ encryptedDekSourceType: 0, annotations: new Map([['a.io', Uint8Array.of(7)]]) }));
  assert.is(toHex(bytes), '0a03010203' + '12016b' + '1a0109' + '22090a04612e696f120107');
});

test('round trip, with unknown fields skipped as protobuf requires', () => {
  const o = sample({
    annotations: new Map([
      ['kms.example.com', Uint8Array.of(1, 2)],
      ['b.example.com', new Uint8Array(0)],
    ]),
  });
  const withUnknown = Uint8Array.from([...encodeEncryptedObject(o), 0x30, 0x05, 0x3a, 0x01, 0x00]);
  const back = decodeEncryptedObject(withUnknown);
  const sorted = (m: ReadonlyMap<string, Uint8Array>) => [...m].sort(([a], [b]) => a.localeCompare(b));
  assert.equal({ ...back, annotations: sorted(back.annotations) }, { ...o, annotations: sorted(o.annotations) });
});

test('decode refuses what kube-apiserver refuses, with its words', () => {
  const refuse = (o: Partial<EncryptedObject>): string => {
    try {
      encodeEncryptedObject(sample(o));
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };
  assert.is(refuse({ encryptedDekSourceType: 7 }), 'unknown encryptedDEKSourceType: 7');
  assert.is(refuse({ encryptedData: new Uint8Array(0) }), 'encrypted data is empty');
  assert.is(
    refuse({ encryptedDekSource: new Uint8Array(1025) }),
    'failed to validate encrypted DEK source: encrypted DEK source is 1025 bytes, which exceeds the max size of 1024',
  );
  assert.is(refuse({ keyId: '' }), 'failed to validate key id: keyID is empty');
  assert.is(refuse({ keyId: 'x'.repeat(1025) }), 'failed to validate key id: keyID is 1025 bytes, which exceeds the max size of 1024');
  assert.match(refuse({ annotations: new Map([['nodots', Uint8Array.of(1)]]) }), /^failed to validate annotations: annotations: Invalid value: "nodots"/);
  assert.is(
    refuse({ annotations: new Map([['a.io', new Uint8Array(32 * 1024)]]) }),
    'failed to validate annotations: total size of annotations is 32772, which exceeds the max size of 32768',
  );
});

test('malformed bytes are errors, never a crash', () => {
  const bad = [
    Uint8Array.of(0x0a, 0x05, 1),
    Uint8Array.of(0x0a),
    Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
    Uint8Array.of(0x0f),
    Uint8Array.of(0x00, 0x00),
    Uint8Array.of(0x12, 0x01, 0xff),
  ];
  for (const bytes of bad) assert.throws(() => decodeEncryptedObject(bytes));
});

test.run();
