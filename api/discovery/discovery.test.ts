import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  chooseDiscoveryRepresentation,
  fairwayDiscoveryModel,
  storageVersionHash,
} from './discovery.ts';

const KUBECTL_DISCOVERY_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,' +
  'application/json';
const V2_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const model = fairwayDiscoveryModel();

test('the per-group-version list equals the document Kubernetes publishes for flowcontrol v1', () => {
  const published = {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'flowcontrol.apiserver.k8s.io/v1',
    resources: [
      {
        name: 'flowschemas',
        singularName: 'flowschema',
        namespaced: false,
        kind: 'FlowSchema',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        storageVersionHash: '9NnFrw7ZEmA=',
      },
      { name: 'flowschemas/status', singularName: '', namespaced: false, kind: 'FlowSchema', verbs: ['get', 'patch', 'update'] },
      {
        name: 'prioritylevelconfigurations',
        singularName: 'prioritylevelconfiguration',
        namespaced: false,
        kind: 'PriorityLevelConfiguration',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        storageVersionHash: '+CwSrEWTDhc=',
      },
      {
        name: 'prioritylevelconfigurations/status',
        singularName: '',
        namespaced: false,
        kind: 'PriorityLevelConfiguration',
        verbs: ['get', 'patch', 'update'],
      },
    ],
  };
  assert.is(JSON.stringify(apiResourceList(model, 'flowcontrol.apiserver.k8s.io', 'v1')), JSON.stringify(published));
  assert.is(apiResourceList(model, 'flowcontrol.apiserver.k8s.io', 'v1beta3'), undefined);
  assert.is(apiResourceList(model, 'nope.k8s.io', 'v1'), undefined);
});

test('no short names or categories are advertised anywhere', () => {
  const text = JSON.stringify([aggregatedDiscovery(model, 'apis'), apiResourceList(model, 'flowcontrol.apiserver.k8s.io', 'v1')]);
  assert.not.match(text, /shortNames|categories/);
});

test('legacy /apis and /apis/<group>', () => {
  const list = apiGroupList(model);
  assert.equal(list.groups[0], {
    name: 'flowcontrol.apiserver.k8s.io',
    versions: [{ groupVersion: 'flowcontrol.apiserver.k8s.io/v1', version: 'v1' }],
    preferredVersion: { groupVersion: 'flowcontrol.apiserver.k8s.io/v1', version: 'v1' },
  });
  assert.equal(
    list.groups.map((g) => g.name),
    ['flowcontrol.apiserver.k8s.io', 'authorization.k8s.io', 'authentication.k8s.io'],
  );
  const group = apiGroup(model, 'flowcontrol.apiserver.k8s.io');
  assert.equal([group?.kind, group?.apiVersion, group?.name], ['APIGroup', 'v1', 'flowcontrol.apiserver.k8s.io']);
  assert.is(apiGroup(model, 'apps'), undefined);
});

test('legacy /api advertises no empty core version (kubectl api-resources would fail on it)', () => {
  assert.equal(apiVersions(model, '127.0.0.1:6443'), {
    kind: 'APIVersions',
    versions: [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
  });
});

test('aggregated /apis has every field client-go needs, responseKind non-empty', () => {
  const doc = aggregatedDiscovery(model, 'apis');
  assert.is(doc.kind, 'APIGroupDiscoveryList');
  assert.is(doc.apiVersion, 'apidiscovery.k8s.io/v2');
  assert.equal(doc.metadata, {});
  const flowcontrol = doc.items[0]!;
  assert.equal(flowcontrol.metadata, { name: 'flowcontrol.apiserver.k8s.io', creationTimestamp: null });
  const version = flowcontrol.versions[0]!;
  assert.equal([version.version, version.freshness], ['v1', 'Current']);
  const plc = version.resources.find((r) => r.resource === 'prioritylevelconfigurations');
  assert.equal(plc, {
    resource: 'prioritylevelconfigurations',
    responseKind: { group: '', version: '', kind: 'PriorityLevelConfiguration' },
    scope: 'Cluster',
    singularResource: 'prioritylevelconfiguration',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'PriorityLevelConfiguration' }, verbs: ['get', 'patch', 'update'] }],
  });
  const ssar = doc.items[1]!.versions[0]!.resources[0]!;
  assert.equal([ssar.resource, ssar.verbs, 'subresources' in ssar], ['selfsubjectaccessreviews', ['create'], false]);
  assert.equal(aggregatedDiscovery(model, 'core').items, []);
});

test('kubectl gets the aggregated form with the exact v2 Content-Type', () => {
  assert.equal(chooseDiscoveryRepresentation(KUBECTL_DISCOVERY_ACCEPT, model), {
    format: 'aggregated',
    mediaType: 'application/json',
    contentType: V2_CONTENT_TYPE,
  });
  assert.is(aggregatedDiscoveryContentType(model), V2_CONTENT_TYPE);
});

test('plain JSON, */*, no Accept and v2beta1-only clients get the legacy form', () => {
  for (const accept of [
    undefined,
    '',
    'application/json',
    'application/json, */*',
    '*/*',
    'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
  ]) {
    assert.is(chooseDiscoveryRepresentation(accept, model).format, 'legacy', String(accept));
  }
  assert.equal(chooseDiscoveryRepresentation('application/yaml', model), { format: 'legacy', mediaType: 'application/yaml', contentType: 'application/yaml' });
});

test('an acceptable aggregated clause wins even with a lower q-value, as in kube-apiserver', () => {
  const accept = 'application/json;q=1, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5';
  assert.is(chooseDiscoveryRepresentation(accept, model).format, 'aggregated');
});

test('nothing acceptable → 406', () => {
  const choice = chooseDiscoveryRepresentation('text/html', model);
  assert.is(choice.format, 'not-acceptable');
  if (choice.format === 'not-acceptable') assert.is(choice.status.code, 406);
  assert.is(chooseDiscoveryRepresentation('application/json;as=Table;v=v1;g=meta.k8s.io', model).format, 'not-acceptable');
});

test('every group name follows the apiDomain', () => {
  const other = fairwayDiscoveryModel('example.com');
  assert.equal(
    apiGroupList(other).groups.map((g) => g.name),
    ['flowcontrol.apiserver.example.com', 'authorization.example.com', 'authentication.example.com'],
  );
  assert.is(aggregatedDiscovery(other, 'apis').apiVersion, 'apidiscovery.example.com/v2');
  assert.is(aggregatedDiscoveryContentType(other), 'application/json;g=apidiscovery.example.com;v=v2;as=APIGroupDiscoveryList');
  // kubectl's hard-wired k8s.io clause is not ours on another domain: it gets the legacy form.
  assert.is(chooseDiscoveryRepresentation(KUBECTL_DISCOVERY_ACCEPT, other).format, 'legacy');
  assert.is(chooseDiscoveryRepresentation('application/json;g=apidiscovery.example.com;v=v2;as=APIGroupDiscoveryList', other).format, 'aggregated');
  assert.is(
    apiResourceList(other, 'flowcontrol.apiserver.example.com', 'v1')?.resources[0]?.storageVersionHash,
    storageVersionHash('flowcontrol.apiserver.example.com', 'v1beta3', 'FlowSchema'),
  );
  assert.is.not(storageVersionHash('flowcontrol.apiserver.example.com', 'v1beta3', 'FlowSchema'), '9NnFrw7ZEmA=');
});

test('the self reviews can be left out', () => {
  assert.equal(apiGroupList(fairwayDiscoveryModel(undefined, { selfReviews: false })).groups.length, 1);
});

test('the self reviews are create-only cluster resources in authorization and authentication v1, in both discovery forms', () => {
  assert.equal(apiResourceList(model, 'authorization.k8s.io', 'v1'), {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'authorization.k8s.io/v1',
    resources: [
      { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
    ],
  });
  assert.equal(apiResourceList(model, 'authentication.k8s.io', 'v1')?.resources, [
    { name: 'selfsubjectreviews', singularName: 'selfsubjectreview', namespaced: false, kind: 'SelfSubjectReview', verbs: ['create'] },
  ]);
  const aggregated = aggregatedDiscovery(model, 'apis');
  const authentication = aggregated.items.find((g) => g.metadata.name === 'authentication.k8s.io');
  assert.equal(authentication?.versions[0]?.resources, [
    {
      resource: 'selfsubjectreviews',
      responseKind: { group: '', version: '', kind: 'SelfSubjectReview' },
      scope: 'Cluster',
      singularResource: 'selfsubjectreview',
      verbs: ['create'],
    },
  ]);
});

test.run();
