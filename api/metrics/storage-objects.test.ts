import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupResourceOfPrefix } from './storage-objects.ts';

test('apiserver_storage_objects labels: resource.group, core resources bare', () => {
  assert.is(groupResourceOfPrefix('/registry/flowcontrol.apiserver.k8s.io/flowschemas/'), 'flowschemas.flowcontrol.apiserver.k8s.io');
  assert.is(groupResourceOfPrefix('/registry/pods/'), 'pods');
  assert.is(groupResourceOfPrefix('/other/pods/'), undefined);
});

test.run();
