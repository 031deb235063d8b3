import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseExposition } from '../../engine/prometheus-text.ts';
import { listSelectivity, resourceOfPrefix, returnsOf } from './list-selectivity.ts';

/** A scrape: `# TYPE` lines for each family named, then the samples as given. */
function scrape(lines: string[]) {
  const families = [...new Set(lines.map((l) => l.slice(0, l.indexOf('{'))))];
  return parseExposition([...families.map((f) => `# TYPE ${f} counter`), ...lines, ''].join('\n'));
}

const none = scrape([]);

test('kube-apiserver 1.32: the watch cache by resource_prefix (its index series summed), etcd by resource.group, added up', () => {
  const after = scrape([
    // 20 LISTs of 120 FlowSchemas, 3 returned each; one through an index (as pods' spec.nodeName).
    'apiserver_cache_list_total{index="",resource_prefix="/flowschemas"} 19',
    'apiserver_cache_list_total{index="f",resource_prefix="/flowschemas"} 1',
    'apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/flowschemas"} 2280',
    'apiserver_cache_list_fetched_objects_total{index="f",resource_prefix="/flowschemas"} 120',
    'apiserver_cache_list_returned_objects_total{resource_prefix="/flowschemas"} 60',
    'apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/minions"} 50',
    'apiserver_cache_list_returned_objects_total{resource_prefix="/minions"} 50',
    // Continue pages went to etcd: 600 keys read and tested, 100 returned.
    'apiserver_storage_list_fetched_objects_total{resource="flowschemas.flowcontrol.apiserver.k8s.io"} 600',
    'apiserver_storage_list_evaluated_objects_total{resource="flowschemas.flowcontrol.apiserver.k8s.io"} 600',
    'apiserver_storage_list_returned_objects_total{resource="flowschemas.flowcontrol.apiserver.k8s.io"} 100',
  ]);
  const selectivity = listSelectivity(none, after)!;
  assert.equal(Object.fromEntries(selectivity.byResource), {
    flowschemas: { tested: 2400, returned: 60 },
    nodes: { tested: 50, returned: 50 },
    'flowschemas.flowcontrol.apiserver.k8s.io': { tested: 600, returned: 100 },
  });
  assert.is(returnsOf(selectivity, 'flowcontrol.apiserver.k8s.io', 'flowschemas', 3000), 160, '160 of 3000 tested');
  assert.is(returnsOf(selectivity, '', 'nodes', 100), undefined, 'all returned');
});

test("1.34's labels: group and resource apart in both families; deltas over the window", () => {
  const at = (n: number) =>
    scrape([
      `apiserver_cache_list_fetched_objects_total{group="",index="",resource="pods"} ${1000 * n}`,
      `apiserver_cache_list_returned_objects_total{group="",resource="pods"} ${10 * n}`,
      `apiserver_storage_list_evaluated_objects_total{group="apps",resource="deployments"} ${100 * n}`,
      `apiserver_storage_list_returned_objects_total{group="apps",resource="deployments"} ${50 * n}`,
    ]);
  const selectivity = listSelectivity(at(1), at(3))!;
  assert.equal(Object.fromEntries(selectivity.byResource), {
    pods: { tested: 2000, returned: 20 },
    'deployments.apps': { tested: 200, returned: 100 },
  });
  assert.is(returnsOf(selectivity, '', 'pods', 500), 5);
  assert.is(returnsOf(selectivity, 'apps', 'deployments', 500), 250);
});

test('the newest labels: storage="watchcache" series repeat the cache families, so they are read only without them', () => {
  const storage = [
    'apiserver_storage_list_fetched_objects_total{group="",index="",resource="pods",storage="watchcache"} 1000',
    'apiserver_storage_list_evaluated_objects_total{group="",resource="pods",storage="watchcache"} 0',
    'apiserver_storage_list_returned_objects_total{group="",resource="pods",storage="watchcache"} 10',
    'apiserver_storage_list_evaluated_objects_total{group="",resource="pods",storage="etcd"} 90',
    'apiserver_storage_list_returned_objects_total{group="",resource="pods",storage="etcd"} 90',
  ];
  const cache = [
    'apiserver_cache_list_fetched_objects_total{group="",index="",resource="pods"} 1000',
    'apiserver_cache_list_returned_objects_total{group="",resource="pods"} 10',
  ];
  const expected = { pods: { tested: 1090, returned: 100 } };
  assert.equal(Object.fromEntries(listSelectivity(none, scrape([...cache, ...storage]))!.byResource), expected, 'counted once');
  assert.equal(Object.fromEntries(listSelectivity(none, scrape(storage))!.byResource), expected, 'from the storage families alone');
});

test('no family, no selectivity; a resource no LIST tested is left out, and an unknown one takes the ratio over all', () => {
  assert.is(listSelectivity(none, scrape(['apiserver_storage_objects{resource="pods"} 3'])), undefined);
  const after = scrape([
    'apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/pods"} 0',
    'apiserver_cache_list_returned_objects_total{resource_prefix="/pods"} 0',
    'apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/leases"} 400',
    'apiserver_cache_list_returned_objects_total{resource_prefix="/leases"} 100',
  ]);
  const selectivity = listSelectivity(none, after)!;
  assert.equal([[...selectivity.byResource.keys()], selectivity.total], [['leases'], { tested: 400, returned: 100 }]);
  assert.is(returnsOf(selectivity, 'example.com', 'widgets', 40), 10);
});

test("resource_prefix names: a built-in resource's plural, kube's special names, a custom resource's group/plural", () => {
  assert.equal(
    ['/flowschemas', '/services/specs', '/services/endpoints', '/minions', '/controllers', '/ingress', '/example.com/widgets'].map(resourceOfPrefix),
    ['flowschemas', 'services', 'endpoints', 'nodes', 'replicationcontrollers', 'ingresses', 'widgets.example.com'],
  );
});

test("a prefix named like an object's own properties is a resource's name, not the prototype's", () => {
  assert.equal(['/constructor', '/__proto__', '/toString'].map(resourceOfPrefix), ['constructor', '__proto__', 'toString']);
});

test.run();
