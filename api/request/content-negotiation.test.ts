import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  PATCH_MEDIA_TYPES,
  negotiateInput,
  negotiateOutput,
  parseAccept,
  parseContentType,
  tableConversions,
  SUPPORTED_MEDIA_TYPES,
} from './content-negotiation.ts';

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const resourceEndpoint = { conversions: tableConversions('meta.k8s.io'), allowsWatchStream: true };

test('parseAccept orders by q, then specificity, then header order, and drops q=0', () => {
  const ranges = parseAccept('*/*;q=0.8, text/*, application/yaml;q=0.9, application/json, image/png;q=0');
  assert.equal(
    ranges.map((r) => `${r.type}/${r.subtype};q=${r.q}`),
    ['application/json;q=1', 'text/*;q=1', 'application/yaml;q=0.9', '*/*;q=0.8'],
  );
  assert.equal(parseAccept('application/json;as=Table;g=meta.k8s.io;v=v1')[0]!.params, { as: 'Table', g: 'meta.k8s.io', v: 'v1' });
  assert.equal(parseAccept(undefined), []);
  assert.equal(parseAccept(' , ;;, /x'), []);
});

test("kubectl's Table Accept gets a v1 Table served as application/json", () => {
  const result = negotiateOutput(TABLE_ACCEPT, resourceEndpoint);
  assert.ok(result.ok);
  if (!result.ok) return;
  assert.equal(result.target, { group: 'meta.k8s.io', version: 'v1', kind: 'Table' });
  assert.is(result.contentType, 'application/json');
});

test('an endpoint without Table support falls back to the plain JSON clause, never 406', () => {
  const result = negotiateOutput(TABLE_ACCEPT, { conversions: [] });
  assert.ok(result.ok && result.target === undefined && result.mediaType === 'application/json');
});

test('YAML, wildcards, q-values and the empty header', () => {
  const pick = (accept: string | undefined) => {
    const r = negotiateOutput(accept, resourceEndpoint);
    return r.ok ? r.mediaType : r.status.code;
  };
  assert.is(pick(undefined), 'application/json');
  assert.is(pick(''), 'application/json');
  assert.is(pick('application/yaml'), 'application/yaml');
  assert.is(pick('application/json;q=0.5, application/yaml'), 'application/yaml');
  assert.is(pick('application/*'), 'application/json');
  assert.is(pick('application/vnd.kubernetes.protobuf, */*'), 'application/json');
  assert.is(pick('application/json, */*;q=0.8'), 'application/json');
  assert.is(pick('text/html'), 406);
  assert.is(pick('application/json;q=0'), 406);
});

test('the Table conversion is available in YAML too, and unknown parameters are tolerated', () => {
  const r = negotiateOutput('application/yaml;as=Table;v=v1;g=meta.k8s.io;foo=bar', resourceEndpoint);
  assert.ok(r.ok && r.mediaType === 'application/yaml' && r.target?.kind === 'Table');
});

test('unknown conversions are skipped; with nothing else acceptable the answer is 406 listing our types', () => {
  const r = negotiateOutput('application/json;as=Scale;v=v1;g=autoscaling', resourceEndpoint);
  assert.not.ok(r.ok);
  if (!r.ok) {
    assert.is(r.status.code, 406);
    assert.is(r.status.message, 'only the following media types are accepted: application/json, application/yaml');
  }
});

test('stream=watch only where the endpoint streams; pretty=1 is reported', () => {
  assert.ok(negotiateOutput('application/json;stream=watch', resourceEndpoint).ok);
  assert.not.ok(negotiateOutput('application/json;stream=watch', { conversions: [] }).ok);
  assert.not.ok(negotiateOutput('application/json;stream=other', resourceEndpoint).ok);
  const pretty = negotiateOutput('application/json;pretty=1', resourceEndpoint);
  assert.ok(pretty.ok && pretty.pretty);
});

test('request bodies: parameters ignored, absent type defaults to JSON except for PATCH, unknown → 415', () => {
  assert.is(parseContentType('Application/JSON; charset=utf-8'), 'application/json');
  assert.equal(negotiateInput('application/json; charset=utf-8', SUPPORTED_MEDIA_TYPES), { ok: true, mediaType: 'application/json' });
  assert.equal(negotiateInput(undefined, SUPPORTED_MEDIA_TYPES), { ok: true, mediaType: 'application/json' });
  const protobuf = negotiateInput('application/vnd.kubernetes.protobuf', SUPPORTED_MEDIA_TYPES);
  assert.not.ok(protobuf.ok);
  if (!protobuf.ok) {
    assert.is(protobuf.status.code, 415);
    assert.is(protobuf.status.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  }
  assert.equal(negotiateInput('application/merge-patch+json', PATCH_MEDIA_TYPES, { requireContentType: true }), {
    ok: true,
    mediaType: 'application/merge-patch+json',
  });
  const noPatchType = negotiateInput('', PATCH_MEDIA_TYPES, { requireContentType: true });
  assert.ok(
    !noPatchType.ok &&
      noPatchType.status.message!.endsWith(
        'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
      ),
  );
});

test.run();
