import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupVersionOpenApi, openApiDocuments, openApiIndex, operationStem, stableStringify } from './openapi.ts';
import { fairwayDiscoveryModel } from '../discovery/discovery.ts';

type Json = Record<string, any>;

const model = fairwayDiscoveryModel();
const documents = openApiDocuments(model);
const doc = JSON.parse(documents.find((d) => d.path === 'apis/flowcontrol.apiserver.k8s.io/v1')!.json) as Json;
const GROUP = 'flowcontrol.apiserver.k8s.io';
const gvk = (kind: string) => ({ group: GROUP, version: 'v1', kind });
const sameGvk = (a: any, b: any) => a !== null && typeof a === 'object' && a.group === b.group && a.version === b.version && a.kind === b.kind;

/** kubectl's query_param_verifier_v3, restated: every PATCH operation tagged with the GVK. */
function patchOperations(document: Json, kind: string): Json[] {
  const found: Json[] = [];
  for (const item of Object.values(document.paths as Json)) {
    const op = (item as Json).patch;
    if (op && sameGvk(op['x-kubernetes-group-version-kind'], gvk(kind))) found.push(op);
  }
  return found;
}

function resolve(document: Json, schema: Json): Json {
  const reference = schema.$ref ?? schema.allOf?.[0]?.$ref;
  if (reference === undefined) return schema;
  const name = String(reference).replace('#/components/schemas/', '');
  const target = document.components.schemas[name];
  assert.ok(target, `dangling reference ${reference}`);
  return target;
}

/** What explain does: find the schema by GVK, then walk the field path through $ref/allOf. */
function explain(document: Json, kind: string, fieldPath: string[]): Json {
  const roots = Object.values(document.components.schemas as Json).filter((s: Json) =>
    (s['x-kubernetes-group-version-kind'] ?? []).some?.((g: unknown) => sameGvk(g, gvk(kind))),
  );
  assert.is(roots.length, 1, `schemas carrying the ${kind} GVK`);
  let schema = roots[0] as Json;
  for (const field of fieldPath) {
    const property = schema.properties?.[field];
    assert.ok(property, `no field ${field}`);
    schema = resolve(document, property.type === 'array' ? property.items : property);
  }
  return schema;
}

test('both kinds declare fieldValidation inline on every PATCH operation, with a strategic-merge body', () => {
  for (const kind of ['PriorityLevelConfiguration', 'FlowSchema']) {
    const ops = patchOperations(doc, kind);
    assert.is(ops.length, 2, `${kind}: main and status PATCH`);
    for (const op of ops) {
      assert.ok(op.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query'));
      assert.ok(op.requestBody.content['application/strategic-merge-patch+json']);
      assert.equal(Object.keys(op.requestBody.content).sort(), [
        'application/apply-patch+yaml',
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
      ]);
    }
  }
});

test('explain can walk both kinds to their leaves, with descriptions and required fields', () => {
  const spec = explain(doc, 'PriorityLevelConfiguration', ['spec']);
  assert.equal(Object.keys(spec.properties).sort(), ['exempt', 'limited', 'type']);
  assert.equal(spec.required, ['type']);
  const queuing = explain(doc, 'PriorityLevelConfiguration', ['spec', 'limited', 'limitResponse', 'queuing']);
  assert.equal(Object.keys(queuing.properties).sort(), ['handSize', 'queueLengthLimit', 'queues']);
  assert.is(queuing.properties.queues.format, 'int32');
  const subject = explain(doc, 'FlowSchema', ['spec', 'rules', 'subjects', 'serviceAccount']);
  assert.equal(subject.required, ['namespace', 'name']);
  const metadata = explain(doc, 'FlowSchema', ['metadata']);
  assert.ok(metadata.properties.managedFields && metadata.properties.resourceVersion);
  assert.ok(explain(doc, 'PriorityLevelConfigurationList', ['items', 'spec']).properties.type);
});

test('in every document, every property of every schema has a description, and every reference resolves', () => {
  for (const document of documents) {
    const parsed = JSON.parse(document.json) as Json;
    const walk = (schema: Json, where: string) => {
      if (schema.$ref) resolve(parsed, schema);
      for (const part of schema.allOf ?? []) walk(part, where);
      if (schema.items) walk(schema.items, `${where}[]`);
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
        assert.type(property.description, 'string', `${where}.${name} has no description`);
        assert.ok(property.description.length > 10, `${where}.${name}`);
        walk(property, `${where}.${name}`);
      }
    };
    for (const [name, schema] of Object.entries(parsed.components.schemas as Json)) walk(schema, `${document.path} ${name}`);
    for (const item of Object.values(parsed.paths as Json)) {
      for (const op of Object.values(item as Json)) {
        const text = JSON.stringify(op);
        for (const match of text.matchAll(/"\$ref":"([^"]+)"/g)) resolve(parsed, { $ref: match[1] });
      }
    }
  }
});

test('conditions are list-maps keyed by type, merged by type; rule lists are atomic, string lists sets', () => {
  for (const kind of ['FlowSchema', 'PriorityLevelConfiguration']) {
    const conditions = explain(doc, kind, ['status']).properties.conditions;
    assert.is(conditions['x-kubernetes-list-type'], 'map');
    assert.equal(conditions['x-kubernetes-list-map-keys'], ['type']);
    assert.is(conditions['x-kubernetes-patch-merge-key'], 'type');
    assert.is(conditions['x-kubernetes-patch-strategy'], 'merge');
  }
  assert.is(explain(doc, 'FlowSchema', ['spec']).properties.rules['x-kubernetes-list-type'], 'atomic');
  assert.is(explain(doc, 'FlowSchema', ['spec', 'rules', 'resourceRules']).properties.verbs['x-kubernetes-list-type'], 'set');
  assert.equal(explain(doc, 'PriorityLevelConfiguration', ['spec'])['x-kubernetes-unions'][0].discriminator, 'type');
});

test('the operations of the endpoint table, each with its query parameters', () => {
  const base = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
  const params = (path: string, method: string) => {
    const item = doc.paths[path];
    assert.ok(item?.[method], `${method} ${path}`);
    return [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p: Json) => p.name).sort();
  };
  const expected: [string, string, string[]][] = [
    [`${base}/{name}`, 'get', ['name', 'pretty']],
    [`${base}/{name}/status`, 'get', ['name', 'pretty']],
    [
      base,
      'get',
      [
        'allowWatchBookmarks',
        'continue',
        'fieldSelector',
        'labelSelector',
        'limit',
        'pretty',
        'resourceVersion',
        'resourceVersionMatch',
        'sendInitialEvents',
        'timeoutSeconds',
        'watch',
      ],
    ],
    [base, 'post', ['dryRun', 'fieldManager', 'fieldValidation', 'pretty']],
    [`${base}/{name}`, 'put', ['dryRun', 'fieldManager', 'fieldValidation', 'name', 'pretty']],
    [`${base}/{name}/status`, 'put', ['dryRun', 'fieldManager', 'fieldValidation', 'name', 'pretty']],
    [`${base}/{name}`, 'patch', ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'name', 'pretty']],
    [`${base}/{name}/status`, 'patch', ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'name', 'pretty']],
    [`${base}/{name}`, 'delete', ['dryRun', 'gracePeriodSeconds', 'name', 'pretty', 'propagationPolicy']],
    [
      base,
      'delete',
      [
        'continue',
        'dryRun',
        'fieldSelector',
        'gracePeriodSeconds',
        'labelSelector',
        'limit',
        'pretty',
        'propagationPolicy',
        'resourceVersion',
        'resourceVersionMatch',
        'sendInitialEvents',
        'timeoutSeconds',
      ],
    ],
  ];
  for (const [path, method, names] of expected) assert.equal(params(path, method), names, `${method} ${path}`);
  assert.equal(Object.keys(doc.paths[base].post.responses).sort(), ['200', '201', '202', '401']);
  assert.ok(doc.paths[base].get.responses['200'].content['application/json;stream=watch']);
  assert.is(
    doc.paths[`${base}/{name}`].delete.responses['200'].content['application/json'].schema.$ref,
    '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  );
});

test('serialisation is deterministic and the index points at each hashed document', () => {
  const again = openApiDocuments(fairwayDiscoveryModel());
  assert.equal(
    again.map((d) => d.json),
    documents.map((d) => d.json),
  );
  const [flowcontrol, authorization, authentication] = again;
  assert.match(flowcontrol!.hash, /^[0-9A-F]{128}$/);
  assert.equal(openApiIndex(again), {
    paths: {
      'apis/authentication.k8s.io/v1': { serverRelativeURL: `/openapi/v3/apis/authentication.k8s.io/v1?hash=${authentication!.hash}` },
      'apis/authorization.k8s.io/v1': { serverRelativeURL: `/openapi/v3/apis/authorization.k8s.io/v1?hash=${authorization!.hash}` },
      'apis/flowcontrol.apiserver.k8s.io/v1': { serverRelativeURL: `/openapi/v3/apis/flowcontrol.apiserver.k8s.io/v1?hash=${flowcontrol!.hash}` },
    },
  });
  assert.is(stableStringify({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } }), '{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  // A change anywhere changes the hash.
  const changed = groupVersionOpenApi('flowcontrol.apiserver.k8s.io', model.groups[0]!.versions[0]!, []) as Json;
  changed.info.version = 'other';
  assert.is.not(stableStringify(changed), flowcontrol!.json);
});

test("operation ids and tags are kube-apiserver's", () => {
  assert.is(operationStem('flowcontrol.apiserver.k8s.io', 'v1'), 'FlowcontrolApiserverV1');
  assert.is(operationStem('authorization.k8s.io', 'v1'), 'AuthorizationV1');
  assert.is(operationStem('stable.example.com', 'v1beta1'), 'StableExampleComV1beta1');
  assert.is(doc.paths['/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas'].get.operationId, 'listFlowcontrolApiserverV1FlowSchema');
  assert.equal(doc.paths['/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas'].get.tags, ['flowcontrolApiserver_v1']);
});

test('watch paths: the deprecated /watch/ forms, as Kubernetes publishes them', () => {
  const base = '/apis/flowcontrol.apiserver.k8s.io/v1/watch/prioritylevelconfigurations';
  const list = doc.paths[base];
  assert.is(list.get.operationId, 'watchFlowcontrolApiserverV1PriorityLevelConfigurationList');
  assert.is(list.get['x-kubernetes-action'], 'watchlist');
  assert.equal(list.get['x-kubernetes-group-version-kind'], gvk('PriorityLevelConfiguration'));
  assert.equal(Object.keys(list.get.responses['200'].content).sort(), [
    'application/json',
    'application/json;stream=watch',
    'application/vnd.kubernetes.protobuf',
    'application/vnd.kubernetes.protobuf;stream=watch',
    'application/yaml',
  ]);
  assert.is(list.get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent');
  const one = doc.paths[`${base}/{name}`];
  assert.is(one.get.operationId, 'watchFlowcontrolApiserverV1PriorityLevelConfiguration');
  assert.is(one.get['x-kubernetes-action'], 'watch');
  assert.equal(one.parameters.map((p: Json) => p.name).sort(), [
    'allowWatchBookmarks',
    'continue',
    'fieldSelector',
    'labelSelector',
    'limit',
    'name',
    'pretty',
    'resourceVersion',
    'resourceVersionMatch',
    'sendInitialEvents',
    'timeoutSeconds',
    'watch',
  ]);
});

test('every served kind has its document and schema: SelfSubjectAccessReview in authorization.k8s.io/v1', () => {
  const authorization = JSON.parse(documents.find((d) => d.path === 'apis/authorization.k8s.io/v1')!.json) as Json;
  const path = authorization.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'];
  assert.equal(Object.keys(path).sort(), ['parameters', 'post']);
  assert.is(path.post.operationId, 'createAuthorizationV1SelfSubjectAccessReview');
  assert.equal(path.post['x-kubernetes-group-version-kind'], { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' });
  const schema = authorization.components.schemas['io.k8s.api.authorization.v1.SelfSubjectAccessReview'];
  assert.equal(schema['x-kubernetes-group-version-kind'], [{ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }]);
  assert.ok(authorization.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
  const deleteOptions = doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']['x-kubernetes-group-version-kind'];
  assert.equal(
    deleteOptions.map((g: Json) => `${g.group}/${g.version}`),
    ['/v1', 'flowcontrol.apiserver.k8s.io/v1', 'authorization.k8s.io/v1', 'authentication.k8s.io/v1'],
  );
  for (const document of documents) {
    const parsed = JSON.parse(document.json) as Json;
    for (const group of model.groups) {
      for (const version of group.versions) {
        if (document.path !== `apis/${group.name}/${version.version}`) continue;
        for (const resource of version.resources) {
          const schemas = Object.values(parsed.components.schemas as Json).filter((s: Json) =>
            (s['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => g.kind === resource.kind && g.group === group.name),
          );
          assert.is(schemas.length, 1, `${resource.kind} has one schema`);
        }
      }
    }
  }
});

test('paths and GVKs follow the apiDomain', () => {
  const other = openApiDocuments(fairwayDiscoveryModel('example.com')).find((d) => d.path.startsWith('apis/flowcontrol'))!;
  assert.is(other.path, 'apis/flowcontrol.apiserver.example.com/v1');
  const parsed = JSON.parse(other.json) as Json;
  assert.ok(parsed.paths['/apis/flowcontrol.apiserver.example.com/v1/flowschemas/{name}']);
  assert.not.match(other.json, /flowcontrol\.apiserver\.k8s\.io/);
  assert.is(patchOperations(parsed, 'FlowSchema').length, 0);
});

test('the self reviews have their group documents: a POST each, GVKs for explain, the rules review status as Kubernetes requires it', () => {
  assert.equal(documents.map((d) => d.path).sort(), ['apis/authentication.k8s.io/v1', 'apis/authorization.k8s.io/v1', 'apis/flowcontrol.apiserver.k8s.io/v1']);
  const expected: [string, string, string, string][] = [
    ['apis/authorization.k8s.io/v1', 'authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'],
    ['apis/authorization.k8s.io/v1', 'authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'],
    ['apis/authentication.k8s.io/v1', 'authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview'],
  ];
  for (const [path, group, resource, kind] of expected) {
    const document = JSON.parse(documents.find((d) => d.path === path)!.json) as Json;
    const post = document.paths[`/apis/${group}/v1/${resource}`].post;
    assert.equal([post['x-kubernetes-action'], post['x-kubernetes-group-version-kind']], ['post', { group, version: 'v1', kind }], kind);
    assert.not.ok(document.paths[`/apis/${group}/v1/${resource}`].get, `${kind} is create-only`);
  }
  const rules = JSON.parse(documents.find((d) => d.path === 'apis/authorization.k8s.io/v1')!.json) as Json;
  const status = rules.components.schemas['io.k8s.api.authorization.v1.SubjectRulesReviewStatus'];
  assert.equal(status.required, ['resourceRules', 'nonResourceRules', 'incomplete']);
  assert.ok(resolve(rules, status.properties.resourceRules.items).properties.verbs);
});

test.run();
