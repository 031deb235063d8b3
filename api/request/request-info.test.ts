import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRequestInfo, splitPath } from './request-info.ts';

const info = (method: string, target: string) => {
  const url = new URL(target, 'https://x');
  return parseRequestInfo(method, url.pathname, url.searchParams);
};
const P = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';

test('collection GET is list, or watch with watch=true/1', () => {
  assert.is(info('GET', P).verb, 'list');
  assert.is(info('GET', `${P}?watch=true`).verb, 'watch');
  assert.is(info('GET', `${P}?watch=1`).verb, 'watch');
  assert.is(info('GET', `${P}?watch=false`).verb, 'list');
  assert.is(info('GET', `${P}?watch=0`).verb, 'list');
  // kube-apiserver's fallback: an unparseable value that is not false/0 counts as a watch.
  assert.is(info('GET', `${P}?watch=yes`).verb, 'watch');
  assert.is(info('GET', `${P}?watch=FaLsE`).verb, 'list');
});

test('named requests map methods to verbs and read the subresource', () => {
  const get = info('GET', `${P}/alpha`);
  assert.equal(
    { ...get },
    {
      isResourceRequest: true,
      path: `${P}/alpha`,
      verb: 'get',
      apiPrefix: 'apis',
      apiGroup: 'flowcontrol.apiserver.k8s.io',
      apiVersion: 'v1',
      namespace: '',
      resource: 'prioritylevelconfigurations',
      subresource: '',
      name: 'alpha',
    },
  );
  assert.is(info('PUT', `${P}/alpha`).verb, 'update');
  assert.is(info('PATCH', `${P}/alpha`).verb, 'patch');
  assert.is(info('DELETE', `${P}/alpha`).verb, 'delete');
  assert.is(info('POST', P).verb, 'create');
  assert.is(info('HEAD', `${P}/alpha`).verb, 'get');
  const status = info('PUT', `${P}/alpha/status`);
  assert.is(status.subresource, 'status');
  assert.is(status.name, 'alpha');
  // A named GET stays a get even with watch=true, as in kube-apiserver.
  assert.is(info('GET', `${P}/alpha?watch=true`).verb, 'get');
});

test('DELETE without a name is deletecollection', () => {
  assert.is(info('DELETE', P).verb, 'deletecollection');
});

test('a metadata.name field selector names the object of a list or watch', () => {
  const listed = info('GET', `${P}?fieldSelector=metadata.name%3Dbeta`);
  assert.is(listed.verb, 'list');
  assert.is(listed.name, 'beta');
  assert.is(info('GET', `${P}?fieldSelector=metadata.name%21%3Dbeta`).name, '');
  assert.is(info('GET', `${P}?fieldSelector=metadata.name%3D..`).name, '', 'not a valid path segment');
  assert.is(info('GET', `${P}?watch=1&fieldSelector=metadata.name%3D%3Dgamma`).name, 'gamma');
});

test('the deprecated /watch/ path form', () => {
  const watch = info('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/watch/flowschemas/x');
  assert.is(watch.verb, 'watch');
  assert.is(watch.resource, 'flowschemas');
  assert.is(watch.name, 'x');
  assert.is(watch.subresource, '');
});

test('core group and namespaced paths', () => {
  const pods = info('GET', '/api/v1/namespaces/ns1/pods/p1/log');
  assert.is(pods.apiGroup, '');
  assert.is(pods.apiVersion, 'v1');
  assert.is(pods.namespace, 'ns1');
  assert.is(pods.resource, 'pods');
  assert.is(pods.name, 'p1');
  assert.is(pods.subresource, 'log');
  const namespace = info('GET', '/api/v1/namespaces/ns1');
  assert.is(namespace.resource, 'namespaces');
  assert.is(namespace.name, 'ns1');
  const finalize = info('PUT', '/api/v1/namespaces/ns1/finalize');
  assert.is(finalize.resource, 'namespaces');
  assert.is(finalize.subresource, 'finalize');
});

test('everything else is a non-resource request with the lower-cased method as verb', () => {
  for (const path of [
    '/healthz',
    '/version',
    '/api',
    '/api/v1',
    '/apis',
    '/apis/flowcontrol.apiserver.k8s.io',
    '/apis/flowcontrol.apiserver.k8s.io/v1',
    '/openapi/v3',
    '/',
  ]) {
    const parsed = info('GET', path);
    assert.is(parsed.isResourceRequest, false, path);
    assert.is(parsed.verb, 'get', path);
  }
  assert.is(info('POST', '/healthz').verb, 'post');
  assert.is(info('GET', '/metrics/').path, '/metrics/');
});

test('path segments: outer slashes dropped, inner empty segments kept, as strings.Split after Trim', () => {
  assert.equal(splitPath('/'), []);
  assert.equal(splitPath(''), []);
  assert.equal(splitPath('///'), []);
  assert.equal(splitPath('/apis/g/v1/r/'), ['apis', 'g', 'v1', 'r']);
  assert.equal(splitPath('//apis//v1/r//'), ['apis', '', 'v1', 'r']);
  assert.equal(splitPath('a'), ['a']);
  const empty = info('GET', '/apis/g//r/x');
  assert.is(empty.apiVersion, '');
  assert.is(empty.resource, 'r');
  assert.is(empty.name, 'x');
});

test('proxy takes no subresource; a namespace status or finalize stays the namespace resource', () => {
  const proxied = info('GET', '/api/v1/proxy/namespaces/ns1/pods/p1/extra/path');
  assert.is(proxied.verb, 'proxy');
  assert.is(proxied.namespace, 'ns1');
  assert.is(proxied.resource, 'pods');
  assert.is(proxied.name, 'p1');
  assert.is(proxied.subresource, '');
  const status = info('PUT', '/api/v1/namespaces/ns1/status');
  assert.is(status.resource, 'namespaces');
  assert.is(status.name, 'ns1');
  assert.is(status.subresource, 'status');
  assert.is(info('GET', '/api/v1/watch').verb, 'watch', 'the special verb without a resource');
  assert.is(info('GET', '/api/v1/watch').resource, '');
});

test('methods outside the REST verbs: lower-cased for non-resource requests, no verb on resource paths', () => {
  assert.is(info('OPTIONS', '/healthz').verb, 'options');
  assert.is(info('PROPFIND', '/healthz').verb, 'propfind');
  assert.is(info('OPTIONS', '/apis/g/v1/r/x').verb, '');
});

test.run();
