import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigPath } from './kubeconfig-path.ts';

const none = () => false;

test('the flag wins; then $KUBECONFIG; then ~/.kube/config, as kubectl', () => {
  assert.is(kubeconfigPath('/given', { kubeconfigVariable: '/env', home: '/home/u', exists: none }), '/given');
  assert.is(kubeconfigPath('', { kubeconfigVariable: '/env', home: '/home/u', exists: none }), '/env');
  assert.is(kubeconfigPath('', { kubeconfigVariable: '', home: '/home/u', exists: none }), '/home/u/.kube/config');
  assert.is(kubeconfigPath('', { home: '/home/u', exists: none }), '/home/u/.kube/config');
});

test('$KUBECONFIG with several files: the first that exists, else the first listed', () => {
  assert.is(kubeconfigPath('', { kubeconfigVariable: '/a::/b:/c', home: '/h', exists: (p) => p === '/b' || p === '/c' }), '/b');
  assert.is(kubeconfigPath('', { kubeconfigVariable: '/a:/b', home: '/h', exists: none }), '/a');
});

test.run();
