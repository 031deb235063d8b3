// A YAML LIST assembled from each object's item text is, byte for byte, the YAML of the whole list:
// over generated JSON-shaped objects (nested maps and lists, empty ones, multi-line strings with
// empty lines and leading spaces, strings YAML must quote), not only the kinds' usual shapes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { yamlListFrame, yamlListItem, yamlText } from './yaml-text.ts';

const text = fc.oneof(
  fc.string(),
  fc.constantFrom('', 'multi\nline', 'a\n\nb\n', '  leading', 'trailing\n\n', '- dash', 'key: value', '"quoted"', 'yes', '123', 'null', '#hash', '\ttab'),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('list'), tie('map')),
  list: fc.array(tie('value'), { maxLength: 4 }),
  map: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), tie('value'), { maxKeys: 5 }),
}));
const object = fc.record({ apiVersion: fc.constant('flowcontrol.apiserver.k8s.io/v1'), kind: fc.constant('FlowSchema'), metadata: json.map, spec: json.value });

test('a YAML list from cached item texts is the YAML of the whole list', () => {
  fc.assert(
    fc.property(fc.array(object, { minLength: 1, maxLength: 5 }), fc.record({ resourceVersion: fc.string(), continue: fc.string() }), (items, metadata) => {
      const list = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchemaList', metadata };
      const { head, tail } = yamlListFrame(list);
      const assembled = head + items.map((item) => yamlListItem(yamlText(item))).join('') + tail;
      assert.is(assembled, yamlText({ ...list, items }));
    }),
    { numRuns: 300, seed: 7 },
  );
});

test.run();
