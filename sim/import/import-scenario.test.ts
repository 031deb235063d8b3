import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { suggestedPriorityLevels, mandatoryPriorityLevels } from '../../engine/resources/bootstrap.ts';
import { importScenario, inferServerCL, manifestOf } from './import-scenario.ts';

// apf-semantics 11.2: the suggested configuration's NominalCLs at ServerCL 600.
const NOMINAL_600 = new Map(
  Object.entries({
    exempt: 0,
    'catch-all': 13,
    system: 74,
    'node-high': 98,
    'leader-election': 25,
    'workload-high': 98,
    'workload-low': 245,
    'global-default': 49,
  }),
);
const levels = [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()];

test('the server concurrency limit: exactly from upper limits, else the smallest that gives every NominalCL', () => {
  assert.is(inferServerCL(levels, NOMINAL_600, new Map([['catch-all', 613]])), 600);
  const fromNominal = inferServerCL(levels, NOMINAL_600, new Map());
  assert.ok(fromNominal !== undefined && fromNominal <= 600 && fromNominal >= 595, String(fromNominal));
  assert.is(inferServerCL(levels, new Map([...NOMINAL_600, ['workload-low', 1]]), new Map()), undefined);
});

test('manifests keep name, labels, annotations and spec; the rest the server set is dropped', () => {
  const object = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: {
      name: 'x',
      uid: 'u',
      resourceVersion: '7',
      generation: 2,
      creationTimestamp: 't',
      managedFields: [{}],
      labels: { a: 'b' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'apf.kubernetes.io/autoupdate-spec': 'false' },
    },
    spec: { matchingPrecedence: 5 },
    status: { conditions: [] },
  };
  assert.equal(manifestOf(object, 'FlowSchema'), {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'x', labels: { a: 'b' }, annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } },
    spec: { matchingPrecedence: 5 },
  });
});

test('metrics without APF or storage samples still give a scenario, with warnings', () => {
  const result = importScenario({ server: 'https://x', context: 'c', priorityLevels: [], flowSchemas: [], metricsText: '# nothing\n', name: 'n' });
  assert.is(result.serverConcurrencyLimit, 600);
  assert.is(result.warnings.length, 2);
  assert.match(result.text, /bootstrap: none/);
});

test.run();
