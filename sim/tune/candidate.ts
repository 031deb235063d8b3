// A tuning candidate: edits to existing priority levels and new levels (each with a FlowSchema)
// for single flows, as values; the manifests that apply it; how big a change it is; and the
// one-step moves the search explores from it.
//
// "Smallest" (docs/simulator.md, "sim tune"): fewest objects created or changed first (an edited
// level is one object, a new level with its FlowSchema two), then the smallest total relative
// change: |ln(new/old)| summed over the shares, queues, hand size and queue length limit edited,
// plus |Δ|/100 for lendable and borrowing percents, plus a new level's shares as a fraction of
// all shares before it (the part of the server it takes from the others).

import type { PolicyRulesWithSubjects, Subject } from '../../engine/resources/types.ts';
import { AUTO_UPDATE_ANNOTATION_KEY, FLOW_SCHEMA_KIND, PRIORITY_LEVEL_KIND } from '../../engine/resources/types.ts';
import { round } from '../report.ts';
import type { ExtraObject } from '../scenario-load.ts';

export const FLOWCONTROL_API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

/** The tunable numbers of a Limited level. */
export interface LevelParams {
  shares: number;
  lendablePercent: number;
  /** undefined: no limit (the field is unset). */
  borrowingLimitPercent: number | undefined;
  /** undefined for a level that rejects instead of queuing. */
  queues: number | undefined;
  handSize: number | undefined;
  queueLengthLimit: number | undefined;
}

export interface DedicatedParams {
  shares: number;
  queueLengthLimit: number;
}

export interface Candidate {
  /** Edits by level name (only the fields that differ from the baseline). */
  levels: Record<string, Partial<LevelParams>>;
  /** New levels by flow name. */
  dedicated: Record<string, DedicatedParams>;
}

/** What the tuner may change, read from the baseline configuration and run. */
export interface TuneSpace {
  serverCL: number;
  /** Sum of every level's shares in the baseline. */
  totalShares: number;
  levels: Map<string, { base: LevelParams; suggested: boolean }>;
  /** Flows that may get their own level: the FlowSchema to create for each, less its level and precedence. */
  dedicatable: Map<string, DedicatedTarget>;
}

export interface DedicatedTarget {
  /** The name of the level and FlowSchema to create. */
  name: string;
  rules: PolicyRulesWithSubjects[];
  /** Just before the schema that matches the flow in the baseline. */
  precedence: number;
  distinguisher: 'ByUser' | 'ByNamespace';
  /** The flow's mean seat demand in the baseline (worst seed). */
  demandSeats: number;
}

export const EMPTY_CANDIDATE: Candidate = { levels: {}, dedicated: {} };

const sortedEntries = <T>(record: Record<string, T>) => Object.entries(record).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/** A canonical text for the candidate (equal candidates, equal keys). */
export function candidateKey(c: Candidate): string {
  return JSON.stringify([sortedEntries(c.levels).map(([n, e]) => [n, sortedEntries(e as Record<string, unknown>)]), sortedEntries(c.dedicated)]);
}

export interface CandidateSize {
  objects: number;
  relativeChange: number;
}

export function candidateSize(c: Candidate, space: TuneSpace): CandidateSize {
  let objects = 0;
  let relative = 0;
  const ln = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || a <= 0 || b <= 0 ? 0 : Math.abs(Math.log(a / b)));
  for (const [name, edit] of Object.entries(c.levels)) {
    const base = space.levels.get(name)!.base;
    objects++;
    relative +=
      ln(edit.shares, base.shares) + ln(edit.queues, base.queues) + ln(edit.handSize, base.handSize) + ln(edit.queueLengthLimit, base.queueLengthLimit);
    if (edit.lendablePercent !== undefined) relative += Math.abs(edit.lendablePercent - base.lendablePercent) / 100;
    if (edit.borrowingLimitPercent !== undefined && base.borrowingLimitPercent !== undefined)
      relative += Math.abs(edit.borrowingLimitPercent - base.borrowingLimitPercent) / 100;
  }
  for (const d of Object.values(c.dedicated)) {
    objects += 2;
    relative += d.shares / space.totalShares + ln(d.queueLengthLimit, DEDICATED_QUEUE_LENGTH_LIMIT);
  }
  return { objects, relativeChange: round(relative, 6) };
}

export function compareSize(a: CandidateSize, b: CandidateSize): number {
  return a.objects - b.objects || a.relativeChange - b.relativeChange;
}

// --- manifests ---------------------------------------------------------------------------------

const DEDICATED_QUEUES = 16;
const DEDICATED_HAND_SIZE = 4;
const DEDICATED_QUEUE_LENGTH_LIMIT = 50;

export function levelParams(c: Candidate, space: TuneSpace, name: string): LevelParams {
  return { ...space.levels.get(name)!.base, ...c.levels[name] };
}

/** DNS-1123 subdomain form of a flow name, for the objects created for it. */
export function dedicatedName(flow: string): string {
  const name = flow
    .toLowerCase()
    .replace(/^audit:/, '')
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return (name || 'flow').slice(0, 63).replace(/[^a-z0-9]+$/, '');
}

/** The PriorityLevelConfigurations and FlowSchemas that apply the candidate, ready for `kubectl apply`. */
export function candidateManifests(c: Candidate, space: TuneSpace): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [name] of sortedEntries(c.levels)) {
    const { suggested } = space.levels.get(name)!;
    const p = levelParams(c, space, name);
    const queuing = p.queues === undefined ? undefined : { queues: p.queues, handSize: p.handSize, queueLengthLimit: p.queueLengthLimit };
    out.push({
      apiVersion: FLOWCONTROL_API_VERSION,
      kind: PRIORITY_LEVEL_KIND,
      // The configuration ensurer restores a suggested object's spec unless this says not to.
      metadata: { name, ...(suggested ? { annotations: { [AUTO_UPDATE_ANNOTATION_KEY]: 'false' } } : {}) },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: p.shares,
          lendablePercent: p.lendablePercent,
          ...(p.borrowingLimitPercent === undefined ? {} : { borrowingLimitPercent: p.borrowingLimitPercent }),
          limitResponse: queuing === undefined ? { type: 'Reject' } : { type: 'Queue', queuing },
        },
      },
    });
  }
  for (const [flow, d] of sortedEntries(c.dedicated)) {
    const target = space.dedicatable.get(flow)!;
    out.push({
      apiVersion: FLOWCONTROL_API_VERSION,
      kind: PRIORITY_LEVEL_KIND,
      metadata: { name: target.name },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: d.shares,
          lendablePercent: 0,
          limitResponse: { type: 'Queue', queuing: { queues: DEDICATED_QUEUES, handSize: DEDICATED_HAND_SIZE, queueLengthLimit: d.queueLengthLimit } },
        },
      },
    });
    out.push({
      apiVersion: FLOWCONTROL_API_VERSION,
      kind: FLOW_SCHEMA_KIND,
      metadata: { name: target.name },
      spec: {
        priorityLevelConfiguration: { name: target.name },
        matchingPrecedence: target.precedence,
        distinguisherMethod: { type: target.distinguisher },
        rules: target.rules,
      },
    });
  }
  return out;
}

export function candidateObjects(c: Candidate, space: TuneSpace, origin: string): ExtraObject[] {
  return candidateManifests(c, space).map((object) => ({ origin, object }));
}

/** One line per change, for people ("workload-low: nominalConcurrencyShares 100 → 200"). */
export function describeCandidate(c: Candidate, space: TuneSpace): string[] {
  const lines: string[] = [];
  const names: Record<keyof LevelParams, string> = {
    shares: 'nominalConcurrencyShares',
    lendablePercent: 'lendablePercent',
    borrowingLimitPercent: 'borrowingLimitPercent',
    queues: 'queues',
    handSize: 'handSize',
    queueLengthLimit: 'queueLengthLimit',
  };
  for (const [name, edit] of sortedEntries(c.levels)) {
    const base = space.levels.get(name)!.base;
    const parts = (Object.keys(names) as (keyof LevelParams)[])
      .filter((k) => edit[k] !== undefined)
      .map((k) => `${names[k]} ${base[k] ?? 'unset'} → ${edit[k]}`);
    lines.push(`PriorityLevelConfiguration ${name}: ${parts.join(', ')}`);
  }
  for (const [flow, d] of sortedEntries(c.dedicated)) {
    const target = space.dedicatable.get(flow)!;
    lines.push(
      `new PriorityLevelConfiguration ${target.name} (nominalConcurrencyShares ${d.shares}, queueLengthLimit ${d.queueLengthLimit}) and FlowSchema ` +
        `${target.name} (matchingPrecedence ${target.precedence}) for flow ${flow}`,
    );
  }
  return lines;
}

// --- moves -------------------------------------------------------------------------------------

export interface Move {
  candidate: Candidate;
  /** 0: acts on a level or flow the failing objectives involve; 1: anything else in scope. */
  tier: number;
  /** The object the move changes (a level's name, or `new:<flow>`), so a round can try each. */
  target: string;
}

const SHARE_STEPS = [1.5, 2, 4];
const QUEUES_MAX = 512;
const HAND_MAX = 16;
const QUEUE_LENGTH_MAX = 10_000;

/** Shares that give a new level about `seats` of NominalCL next to the existing shares. */
export function sharesForSeats(seats: number, space: TuneSpace): number {
  const target = Math.min(Math.max(1, seats), space.serverCL / 4);
  return Math.max(1, Math.ceil((target * space.totalShares) / (space.serverCL - target)));
}

/**
 * Every candidate one step away: scale a level's shares, stop it lending, lengthen or multiply its
 * queues, widen hands; give a flow its own level, or scale a new level's shares.
 */
export function movesFrom(c: Candidate, space: TuneSpace, focus: { levels: ReadonlySet<string>; flows: ReadonlySet<string> }): Move[] {
  const moves: Move[] = [];
  const withLevel = (name: string, edit: Partial<LevelParams>, tier: number) => {
    const base = space.levels.get(name)!.base;
    const merged: Partial<LevelParams> = { ...c.levels[name], ...edit };
    // Fields back at the baseline's value are not edits.
    for (const k of Object.keys(merged) as (keyof LevelParams)[]) if (merged[k] === base[k]) delete merged[k];
    const levels = { ...c.levels };
    if (Object.keys(merged).length === 0) delete levels[name];
    else levels[name] = merged;
    moves.push({ candidate: { levels, dedicated: c.dedicated }, tier, target: name });
  };
  for (const name of space.levels.keys()) {
    const p = levelParams(c, space, name);
    const tier = focus.levels.has(name) ? 0 : 1;
    for (const step of SHARE_STEPS) withLevel(name, { shares: Math.max(1, Math.round(p.shares * step)) }, tier);
    // Taking shares from a level the objectives do not involve gives the others more.
    if (tier === 1 && p.shares > 1) withLevel(name, { shares: Math.max(1, Math.round(p.shares / 2)) }, tier);
    if (tier === 0 && p.lendablePercent > 0) {
      withLevel(name, { lendablePercent: 0 }, tier);
      if (p.lendablePercent >= 20) withLevel(name, { lendablePercent: Math.round(p.lendablePercent / 2) }, tier);
    }
    if (tier === 0 && p.borrowingLimitPercent !== undefined)
      withLevel(name, { borrowingLimitPercent: Math.min(1000, Math.max(10, p.borrowingLimitPercent * 2)) }, tier);
    if (p.queues !== undefined && p.handSize !== undefined && p.queueLengthLimit !== undefined) {
      if (p.queueLengthLimit * 2 <= QUEUE_LENGTH_MAX) withLevel(name, { queueLengthLimit: p.queueLengthLimit * 2 }, tier);
      if (p.queueLengthLimit * 4 <= QUEUE_LENGTH_MAX) withLevel(name, { queueLengthLimit: p.queueLengthLimit * 4 }, tier);
      if (p.queues * 2 <= QUEUES_MAX) withLevel(name, { queues: p.queues * 2 }, tier);
      if (p.handSize + 2 <= Math.min(HAND_MAX, p.queues) && entropyOk(p.queues, p.handSize + 2)) withLevel(name, { handSize: p.handSize + 2 }, tier);
    }
  }
  for (const [flow, target] of space.dedicatable) {
    const tier = focus.flows.has(flow) ? 0 : 1;
    const existing = c.dedicated[flow];
    const dedicate = (d: DedicatedParams) =>
      moves.push({ candidate: { levels: c.levels, dedicated: { ...c.dedicated, [flow]: d } }, tier, target: `new:${flow}` });
    if (existing === undefined) {
      const sized = new Set([sharesForSeats(Math.ceil(2 * target.demandSeats), space), sharesForSeats(Math.ceil(space.serverCL / 20), space)]);
      for (const shares of sized) dedicate({ shares, queueLengthLimit: DEDICATED_QUEUE_LENGTH_LIMIT });
    } else {
      for (const step of [0.5, 2]) dedicate({ ...existing, shares: Math.max(1, Math.round(existing.shares * step)) });
      if (existing.queueLengthLimit * 2 <= QUEUE_LENGTH_MAX) dedicate({ ...existing, queueLengthLimit: existing.queueLengthLimit * 2 });
    }
  }
  return moves;
}

/** Kubernetes' shuffle-sharding bound: handSize · log2(queues) ≤ 60 bits. */
function entropyOk(queues: number, handSize: number): boolean {
  return Math.ceil(handSize * Math.log2(queues)) <= 60;
}

/** A subject for a user name: service accounts as ServiceAccount subjects, others as User. */
export function subjectFor(user: string): Subject {
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  if (sa !== null) return { kind: 'ServiceAccount', serviceAccount: { namespace: sa[1]!, name: sa[2]! } };
  return { kind: 'User', user: { name: user } };
}
