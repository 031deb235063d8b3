import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSchema, PriorityLevelConfiguration, Subject } from './types.ts';
import {
  MANDATORY_NAMES,
  SUGGESTED_NAMES,
  mandatoryFlowSchemas,
  mandatoryObject,
  mandatoryPriorityLevels,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
} from './bootstrap.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from './defaults.ts';
import { validateFlowSchema } from './flow-schema-validation.ts';
import { validatePriorityLevelConfiguration } from './priority-level-validation.ts';

const names = (objects: { metadata?: { name?: string } }[]): string[] => objects.map((o) => o.metadata?.name ?? '');
const allLevels = (): PriorityLevelConfiguration[] => [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()];
const allSchemas = (): FlowSchema[] => [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()];

test("the lists come in Kubernetes' code order", () => {
  assert.equal(names(mandatoryPriorityLevels()), ['catch-all', 'exempt']);
  assert.equal(names(suggestedPriorityLevels()), ['system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default']);
  assert.equal(names(mandatoryFlowSchemas()), ['exempt', 'catch-all']);
  assert.equal(names(suggestedFlowSchemas()), [
    'system-nodes',
    'system-node-high',
    'probes',
    'system-leader-election',
    'workload-leader-election',
    'endpoint-controller',
    'kube-controller-manager',
    'kube-scheduler',
    'kube-system-service-accounts',
    'service-accounts',
    'global-default',
  ]);
});

test('priority levels match the fact sheet table (4.1)', () => {
  type Row = [name: string, type: string, shares: number, lendable: number, response: string, queues?: number, handSize?: number, queueLengthLimit?: number];
  const table: Row[] = [
    ['catch-all', 'Limited', 5, 0, 'Reject'],
    ['exempt', 'Exempt', 0, 0, 'n/a'],
    ['system', 'Limited', 30, 33, 'Queue', 64, 6, 50],
    ['node-high', 'Limited', 40, 25, 'Queue', 64, 6, 50],
    ['leader-election', 'Limited', 10, 0, 'Queue', 16, 4, 50],
    ['workload-high', 'Limited', 40, 50, 'Queue', 128, 6, 50],
    ['workload-low', 'Limited', 100, 90, 'Queue', 128, 6, 50],
    ['global-default', 'Limited', 20, 50, 'Queue', 128, 6, 50],
  ];
  const rows = allLevels().map((plc): Row => {
    const spec = plc.spec!;
    if (spec.type === 'Exempt') {
      assert.is(spec.limited, undefined);
      return [plc.metadata!.name!, spec.type, spec.exempt!.nominalConcurrencyShares!, spec.exempt!.lendablePercent!, 'n/a'];
    }
    const l = spec.limited!;
    assert.is(spec.exempt, undefined);
    assert.is(l.borrowingLimitPercent, undefined, 'no borrowing limit');
    const q = l.limitResponse!.queuing;
    const row: Row = [plc.metadata!.name!, spec.type!, l.nominalConcurrencyShares!, l.lendablePercent!, l.limitResponse!.type!];
    if (q) row.push(q.queues!, q.handSize!, q.queueLengthLimit!);
    return row;
  });
  assert.equal(rows, table);
});

const subjectText = (s: Subject): string =>
  s.kind === 'ServiceAccount' ? `SA ${s.serviceAccount!.namespace}/${s.serviceAccount!.name}` : `${s.kind} ${(s.user ?? s.group)!.name}`;

test('flow schemas match the fact sheet table (4.2)', () => {
  const ALL_RES = 'res * | * | * | CS | *';
  const ALL_NONRES = 'nonres * | *';
  const everyone = ['Group system:unauthenticated', 'Group system:authenticated'];
  type Row = [name: string, precedence: number, level: string, distinguisher: string, subjects: string[], rules: string[]];
  const table: Row[] = [
    ['exempt', 1, 'exempt', 'nil', ['Group system:masters'], [ALL_RES, ALL_NONRES]],
    ['catch-all', 10000, 'catch-all', 'ByUser', everyone, [ALL_RES, ALL_NONRES]],
    ['system-nodes', 500, 'system', 'ByUser', ['Group system:nodes'], [ALL_RES, ALL_NONRES]],
    [
      'system-node-high',
      400,
      'node-high',
      'ByUser',
      ['Group system:nodes'],
      ['res * |  | nodes,nodes/status | CS | *', 'res * | coordination.k8s.io | leases | - | *'],
    ],
    ['probes', 2, 'exempt', 'nil', everyone, ['nonres get | /healthz,/readyz,/livez']],
    [
      'system-leader-election',
      100,
      'leader-election',
      'ByUser',
      ['User system:kube-controller-manager', 'User system:kube-scheduler', 'SA kube-system/*'],
      ['res get,create,update | coordination.k8s.io | leases | - | *'],
    ],
    [
      'workload-leader-election',
      200,
      'leader-election',
      'ByUser',
      ['SA kube-system/*'],
      ['res get,create,update |  | endpoints,configmaps | - | *', 'res get,create,update | coordination.k8s.io | leases | - | *'],
    ],
    [
      'endpoint-controller',
      150,
      'workload-high',
      'ByUser',
      ['User system:kube-controller-manager', 'SA kube-system/endpoint-controller', 'SA kube-system/endpointslicemirroring-controller'],
      ['res get,create,update |  | endpoints | - | *'],
    ],
    ['kube-controller-manager', 800, 'workload-high', 'ByNamespace', ['User system:kube-controller-manager'], [ALL_RES, ALL_NONRES]],
    ['kube-scheduler', 800, 'workload-high', 'ByNamespace', ['User system:kube-scheduler'], [ALL_RES, ALL_NONRES]],
    ['kube-system-service-accounts', 900, 'workload-high', 'ByNamespace', ['SA kube-system/*'], [ALL_RES, ALL_NONRES]],
    ['service-accounts', 9000, 'workload-low', 'ByUser', ['Group system:serviceaccounts'], [ALL_RES, ALL_NONRES]],
    ['global-default', 9900, 'global-default', 'ByUser', everyone, [ALL_RES, ALL_NONRES]],
  ];
  const rows = allSchemas().map((fs): Row => {
    const spec = fs.spec!;
    assert.is(spec.rules!.length, 1, 'one rule per schema');
    const rule = spec.rules![0]!;
    const rules = [
      ...(rule.resourceRules ?? []).map(
        (r) =>
          `res ${r.verbs!.join(',')} | ${r.apiGroups!.join(',')} | ${r.resources!.join(',')} | ${r.clusterScope === true ? 'CS' : '-'} | ` +
          `${r.namespaces!.join(',')}`,
      ),
      ...(rule.nonResourceRules ?? []).map((r) => `nonres ${r.verbs!.join(',')} | ${r.nonResourceURLs!.join(',')}`),
    ];
    return [
      fs.metadata!.name!,
      spec.matchingPrecedence!,
      spec.priorityLevelConfiguration!.name!,
      spec.distinguisherMethod?.type ?? 'nil',
      rule.subjects!.map(subjectText),
      rules,
    ];
  });
  assert.equal(rows, table);
});

test('every object is annotated for auto-update and carries the apiVersion of the domain', () => {
  for (const o of [...allLevels(), ...allSchemas()]) {
    assert.equal(o.metadata!.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' }, o.metadata!.name);
    assert.is(o.apiVersion, 'flowcontrol.apiserver.k8s.io/v1');
  }
  assert.ok(mandatoryPriorityLevels().every((o) => o.kind === 'PriorityLevelConfiguration'));
  assert.ok(suggestedFlowSchemas().every((o) => o.kind === 'FlowSchema'));
  const other = [...mandatoryPriorityLevels('example.org'), ...suggestedFlowSchemas('example.org')];
  assert.ok(other.every((o) => o.apiVersion === 'flowcontrol.apiserver.example.org/v1'));
});

test('defaulting changes nothing, and every object validates cleanly after it', () => {
  for (const plc of allLevels()) {
    const defaulted = defaultPriorityLevelConfiguration(plc);
    assert.equal(defaulted, plc, plc.metadata!.name);
    assert.equal(validatePriorityLevelConfiguration(defaulted), [], plc.metadata!.name);
  }
  for (const fs of allSchemas()) {
    const defaulted = defaultFlowSchema(fs);
    assert.equal(defaulted, fs, fs.metadata!.name);
    assert.equal(validateFlowSchema(defaulted), [], fs.metadata!.name);
  }
});

test('every schema names a bootstrap priority level', () => {
  const levels = new Set(names(allLevels()));
  for (const fs of allSchemas()) assert.ok(levels.has(fs.spec!.priorityLevelConfiguration!.name!), fs.metadata!.name);
});

test('each call returns fresh objects', () => {
  const first = suggestedFlowSchemas();
  first[0]!.spec!.rules![0]!.subjects!.push({ kind: 'User', user: { name: 'mallory' } });
  first[0]!.metadata!.annotations!['apf.kubernetes.io/autoupdate-spec'] = 'false';
  const second = suggestedFlowSchemas();
  assert.is(second[0]!.spec!.rules![0]!.subjects!.length, 1);
  assert.is(second[0]!.metadata!.annotations!['apf.kubernetes.io/autoupdate-spec'], 'true');
  const level = mandatoryPriorityLevels();
  level[1]!.spec!.exempt!.lendablePercent = 50;
  assert.is(mandatoryPriorityLevels()[1]!.spec!.exempt!.lendablePercent, 0);
  const object = mandatoryObject('PriorityLevelConfiguration', 'catch-all')!;
  object.spec!.limited!.nominalConcurrencyShares = 1;
  assert.is(mandatoryObject('PriorityLevelConfiguration', 'catch-all')!.spec!.limited!.nominalConcurrencyShares, 5);
});

test('name sets per kind', () => {
  assert.equal([...MANDATORY_NAMES.PriorityLevelConfiguration].sort(), ['catch-all', 'exempt']);
  assert.equal([...MANDATORY_NAMES.FlowSchema].sort(), ['catch-all', 'exempt']);
  assert.equal([...SUGGESTED_NAMES.PriorityLevelConfiguration].sort(), [
    'global-default',
    'leader-election',
    'node-high',
    'system',
    'workload-high',
    'workload-low',
  ]);
  assert.is(SUGGESTED_NAMES.FlowSchema.size, 11);
  assert.ok(SUGGESTED_NAMES.FlowSchema.has('probes'));
  assert.not.ok(SUGGESTED_NAMES.FlowSchema.has('system'), 'a level name is not a schema name');
  assert.is(mandatoryObject('FlowSchema', 'probes'), undefined);
});

test.run();
