// Kubernetes compares flowcontrol specs with `equality.Semantic.DeepEqual` on Go structs. In JSON
// terms that means: a missing scalar is its zero value (`""`, 0, false), a missing or null pointer
// is nil and differs from a pointer to zero (nominalConcurrencyShares: nil ≠ 0), a missing or null
// list equals an empty one, and unknown fields do not exist. Each spec is first brought to that
// canonical shape, then compared structurally.

import type { FlowSchemaSpec, NonResourcePolicyRule, PolicyRulesWithSubjects, PriorityLevelConfigurationSpec, ResourcePolicyRule, Subject } from './types.ts';

export function flowSchemaSpecsEqual(a: FlowSchemaSpec | undefined, b: FlowSchemaSpec | undefined): boolean {
  return deepEqual(canonicalFlowSchemaSpec(a), canonicalFlowSchemaSpec(b));
}

export function priorityLevelSpecsEqual(a: PriorityLevelConfigurationSpec | undefined, b: PriorityLevelConfigurationSpec | undefined): boolean {
  return deepEqual(canonicalPriorityLevelSpec(a), canonicalPriorityLevelSpec(b));
}

/** The spec as Go would hold it after decoding: every field present, nil pointers as null. */
export function canonicalPriorityLevelSpec(spec: PriorityLevelConfigurationSpec | undefined): unknown {
  const s = record(spec);
  const limited = pointer(s.limited, (l) => {
    const limitResponse = record(l.limitResponse);
    return {
      nominalConcurrencyShares: optionalNumber(l.nominalConcurrencyShares),
      lendablePercent: optionalNumber(l.lendablePercent),
      borrowingLimitPercent: optionalNumber(l.borrowingLimitPercent),
      limitResponse: {
        type: str(limitResponse.type),
        queuing: pointer(limitResponse.queuing, (q) => ({
          queues: num(q.queues),
          handSize: num(q.handSize),
          queueLengthLimit: num(q.queueLengthLimit),
        })),
      },
    };
  });
  const exempt = pointer(s.exempt, (e) => ({
    nominalConcurrencyShares: optionalNumber(e.nominalConcurrencyShares),
    lendablePercent: optionalNumber(e.lendablePercent),
  }));
  return { type: str(s.type), limited, exempt };
}

export function canonicalFlowSchemaSpec(spec: FlowSchemaSpec | undefined): unknown {
  const s = record(spec);
  return {
    priorityLevelConfiguration: { name: str(record(s.priorityLevelConfiguration).name) },
    matchingPrecedence: num(s.matchingPrecedence),
    distinguisherMethod: pointer(s.distinguisherMethod, (d) => ({ type: str(d.type) })),
    rules: items<PolicyRulesWithSubjects>(s.rules).map(canonicalRule),
  };
}

function canonicalRule(rule: PolicyRulesWithSubjects): unknown {
  const r = record(rule);
  return {
    subjects: items<Subject>(r.subjects).map((subject) => {
      const x = record(subject);
      return {
        kind: str(x.kind),
        user: pointer(x.user, (u) => ({ name: str(u.name) })),
        group: pointer(x.group, (g) => ({ name: str(g.name) })),
        serviceAccount: pointer(x.serviceAccount, (sa) => ({ namespace: str(sa.namespace), name: str(sa.name) })),
      };
    }),
    resourceRules: items<ResourcePolicyRule>(r.resourceRules).map((resourceRule) => {
      const x = record(resourceRule);
      return {
        verbs: strings(x.verbs),
        apiGroups: strings(x.apiGroups),
        resources: strings(x.resources),
        clusterScope: x.clusterScope === true,
        namespaces: strings(x.namespaces),
      };
    }),
    nonResourceRules: items<NonResourcePolicyRule>(r.nonResourceRules).map((nonResourceRule) => {
      const x = record(nonResourceRule);
      return { verbs: strings(x.verbs), nonResourceURLs: strings(x.nonResourceURLs) };
    }),
  };
}

/** Structural equality of plain JSON data (objects, arrays, primitives). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual((a as Record<string, unknown>)[k], rb[k]));
}

type Loose = Record<string, unknown>;

function record(value: unknown): Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
}

function pointer<T>(value: unknown, shape: (v: Loose) => T): T | null {
  return value === undefined || value === null ? null : shape(record(value));
}

function str(value: unknown): unknown {
  return value === undefined || value === null ? '' : value;
}

function num(value: unknown): unknown {
  return value === undefined || value === null ? 0 : value;
}

function optionalNumber(value: unknown): unknown {
  return value === undefined ? null : value;
}

function items<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

function strings(value: unknown): unknown[] {
  return Array.isArray(value) ? value.map(str) : [];
}
