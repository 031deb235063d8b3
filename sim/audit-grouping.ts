// How replayed audit events become report flows. Grouping by user alone lumps a controller's
// lease renewals together with its LISTs, though APF puts them in different FlowSchemas and levels;
// the default (user + FlowSchema) keeps apart what the engine keeps apart.

import { groupResourceKey } from '../engine/flowcontrol/work-estimate.ts';
import type { RequestShape } from './request-shape.ts';

export const AUDIT_GROUPINGS = ['user', 'user+flowschema', 'flowschema', 'verb+resource', 'user-agent'] as const;
export type AuditGrouping = (typeof AUDIT_GROUPINGS)[number];
export const DEFAULT_AUDIT_GROUPING: AuditGrouping = 'user+flowschema';

export function isAuditGrouping(value: string): value is AuditGrouping {
  return (AUDIT_GROUPINGS as readonly string[]).includes(value);
}

/** The report flow name of one replayed request (always prefixed `audit:`). */
export function auditFlowName(grouping: AuditGrouping, shape: RequestShape, userAgent: string, flowSchema: string): string {
  switch (grouping) {
    case 'user':
      return `audit:${shape.user}`;
    case 'user+flowschema':
      return `audit:${shape.user}/${flowSchema}`;
    case 'flowschema':
      return `audit:${flowSchema}`;
    case 'verb+resource': {
      if (shape.nonResourcePath !== '') return `audit:${shape.verb} ${shape.nonResourcePath}`;
      const resource = groupResourceKey(shape.apiGroup, shape.resource);
      return `audit:${shape.verb} ${resource}${shape.subresource === '' ? '' : `/${shape.subresource}`}`;
    }
    case 'user-agent':
      return `audit:${userAgent === '' ? '(no user agent)' : userAgent}`;
  }
}
