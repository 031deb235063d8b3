// kubectl 1.32's `auth can-i` body (kubectl-contract A.8), written here by an independent minimal
// wire writer, read through the envelope and the generated SelfSubjectAccessReview message.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeBody } from './objects.ts';
import { decodeEnvelope, encodeEnvelope, envelopeAround } from './envelope.ts';

const varint = (n: number): number[] => {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return out;
};
const bytesField = (field: number, value: number[]): number[] => [...varint((field << 3) | 2), ...varint(value.length), ...value];
const str = (field: number, value: string) => bytesField(field, [...Buffer.from(value, 'utf8')]);
const intField = (field: number, value: number) => [...varint(field << 3), ...varint(value)];

function kubectlBody(resourceAttributes: number[] | undefined, nonResource?: number[]): Uint8Array {
  const metadata = [...str(1, ''), ...str(2, ''), ...str(3, ''), ...str(4, ''), ...str(5, ''), ...str(6, ''), ...intField(7, 0), ...bytesField(8, [])];
  const spec = [
    ...(resourceAttributes !== undefined ? bytesField(1, resourceAttributes) : []),
    ...(nonResource !== undefined ? bytesField(2, nonResource) : []),
  ];
  const status = [...intField(1, 0), ...str(2, ''), ...str(3, ''), ...intField(4, 0)];
  const raw = [...bytesField(1, metadata), ...bytesField(2, spec), ...bytesField(3, status)];
  const typeMeta = [...str(1, 'authorization.k8s.io/v1'), ...str(2, 'SelfSubjectAccessReview')];
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...bytesField(1, typeMeta), ...bytesField(2, raw), ...str(3, ''), ...str(4, '')]);
}

const listPlc = [
  ...str(1, 'default'),
  ...str(2, 'list'),
  ...str(3, 'flowcontrol.apiserver.k8s.io'),
  ...str(4, ''),
  ...str(5, 'prioritylevelconfigurations'),
  ...str(6, ''),
  ...str(7, ''),
];

const specOf = (body: Uint8Array) => {
  const decoded = decodeBody(body, 'SelfSubjectAccessReview');
  assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
  return decoded.ok ? decoded.decoded.value.spec : undefined;
};

test('reads the can-i body kubectl sends (byte layout as observed)', () => {
  const body = kubectlBody(listPlc);
  const observed =
    '6b387300 0a320a17 617574686f72697a 6174696f6e2e6b38 732e696f2f763112 1753656c66537562 6a65637441636365 7373526576696577 12700a100a001200 ' +
    '1a0022002a003200 380042001252 0a50 0a0764656661756c74 12046c697374 1a1c 666c6f77636f6e74726f6c2e617069 7365727665722e6b38732e696f 2200 2a';
  assert.is(Buffer.from(body.subarray(0, 128)).toString('hex'), observed.replace(/ /g, ''));
  const unwrapped = decodeEnvelope(body);
  assert.ok(unwrapped.ok && unwrapped.envelope.apiVersion === 'authorization.k8s.io/v1' && unwrapped.envelope.kind === 'SelfSubjectAccessReview');
  const decoded = decodeBody(body, 'SelfSubjectAccessReview');
  assert.ok(decoded.ok);
  if (!decoded.ok) return;
  assert.equal(decoded.decoded.value, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: { resourceAttributes: { namespace: 'default', verb: 'list', group: 'flowcontrol.apiserver.k8s.io', resource: 'prioritylevelconfigurations' } },
    status: {},
  });
});

test('non-resource attributes and selectors', () => {
  const withSelector = [...listPlc, ...bytesField(9, [...bytesField(2, [...str(1, 'app'), ...str(2, 'In'), ...str(3, 'web'), ...str(3, 'api')])])];
  const spec = specOf(kubectlBody(withSelector)) as { resourceAttributes: { labelSelector: unknown } };
  assert.equal(spec.resourceAttributes.labelSelector, { requirements: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] });
  assert.equal(specOf(kubectlBody(undefined, [...str(1, '/healthz'), ...str(2, 'get')])), { nonResourceAttributes: { path: '/healthz', verb: 'get' } });
});

test('malformed input is an error value in Go’s words', () => {
  assert.equal(decodeEnvelope(new Uint8Array([1, 2, 3, 4, 5])), { ok: false, error: 'provided value is not protobuf' });
  const truncated = decodeEnvelope(kubectlBody(listPlc).subarray(0, 60));
  assert.equal(truncated, { ok: false, error: 'unexpected EOF' });
  const error = (raw: number[]) => {
    const decoded = decodeBody(new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...bytesField(2, raw)]), 'SelfSubjectAccessReview');
    return decoded.ok ? undefined : decoded.error;
  };
  assert.is(error([0x0b]), 'proto: wrong wireType = 3 for field Metadata');
  assert.is(error([0x4f]), 'proto: illegal wireType 7');
  assert.is(error([0x1a, 0x02, 0x10, 0x01]), 'proto: wrong wireType = 0 for field Reason');
});

test('envelopeAround: the head and tail around a raw of any length are what encodeEnvelope writes', () => {
  for (const length of [1, 2, 127, 128, 16_383, 16_384, 2_500_000]) {
    const raw = Buffer.alloc(length, 7);
    const { head, tail } = envelopeAround('flowcontrol.apiserver.k8s.io/v1', 'FlowSchemaList', length);
    assert.ok(Buffer.concat([head, raw, tail]).equals(encodeEnvelope('flowcontrol.apiserver.k8s.io/v1', 'FlowSchemaList', raw)), `raw of ${length} bytes`);
  }
});

test.run();
