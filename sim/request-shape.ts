// The RequestDigest (who asks for what) of a simulated request, shaped as kube-apiserver's
// RequestInfo resolver would produce it for the equivalent URL, so FlowSchema rules match the
// simulated traffic exactly as they would match the real one.

import type { RequestDigest } from '../engine/flowcontrol/request-digest.ts';
import { nonResourceInfo } from '../engine/request/request-info.ts';

export interface RequestShape {
  user: string;
  groups: readonly string[];
  verb: string;
  /** Empty for a non-resource request. */
  resource: string;
  apiGroup: string;
  apiVersion?: string;
  namespace: string;
  subresource: string;
  name: string;
  /** A non-resource path (`/healthz`); when set, the request is a non-resource request. */
  nonResourcePath: string;
}

export function requestDigest(shape: RequestShape): RequestDigest {
  const user = { name: shape.user, groups: [...shape.groups] };
  if (shape.nonResourcePath !== '') {
    return { user, requestInfo: nonResourceInfo(shape.nonResourcePath, shape.verb) };
  }
  const apiVersion = shape.apiVersion ?? 'v1';
  const prefix = shape.apiGroup === '' ? `/api/${apiVersion}` : `/apis/${shape.apiGroup}/${apiVersion}`;
  const segments = [prefix];
  if (shape.namespace !== '') segments.push('namespaces', shape.namespace);
  segments.push(shape.resource);
  if (shape.name !== '') segments.push(shape.name);
  if (shape.subresource !== '') segments.push(shape.subresource);
  return {
    user,
    requestInfo: {
      isResourceRequest: true,
      path: segments.join('/'),
      verb: shape.verb,
      apiPrefix: shape.apiGroup === '' ? 'api' : 'apis',
      apiGroup: shape.apiGroup,
      apiVersion,
      namespace: shape.namespace,
      resource: shape.resource,
      subresource: shape.subresource,
      name: shape.name,
    },
  };
}
