// Suggestions: the remedies the explanations name, each turned into what an operator would apply
// (PriorityLevelConfiguration and FlowSchema manifests, or a client change for paginated LISTs),
// simulated with the same seed as the run, and kept only when the flow it is for got better. Each
// carries its effect on every flow, so its cost to the others is in plain view.

import { stringify } from 'yaml';
import type { AuditLog } from '../audit-log.ts';
import type { AuditGrouping } from '../audit-grouping.ts';
import { buildReport, type SimulationReport } from '../report.ts';
import { loadScenarioFile, type LoadedScenario } from '../scenario-load.ts';
import type { FlowSpec } from '../scenario.ts';
import { runSimulation } from '../simulation.ts';
import { digestOf } from '../run-digest.ts';
import { candidateManifests, candidateObjects, describeCandidate, levelParams, sharesForSeats, type Candidate } from '../tune/candidate.ts';
import { buildSpace } from '../tune/space.ts';
import type { Explanation } from './explain.ts';
import { dealerParameterError } from '../../engine/shuffle-sharding.ts';
import type { FlowEffect, Remedy, Suggestion } from '../remedy.ts';

export const MAX_SUGGESTIONS = 3;
/** Remedies simulated at most per run (each costs one more simulation). */
export const MAX_TRIED = 5;
/** The most queues a suggestion gives a level. */
const MAX_SUGGESTED_QUEUES = 256;

export interface SuggestionInput {
  scenarioFile: string;
  variantFiles: readonly string[];
  seed: string;
  loaded: LoadedScenario;
  report: SimulationReport;
  explanations: readonly Explanation[];
  auditLog?: AuditLog | undefined;
  auditGrouping?: AuditGrouping | undefined;
}

const remedyKey = (r: Remedy) => JSON.stringify(r);

export async function suggest(input: SuggestionInput): Promise<Suggestion[]> {
  // Each remedy once, with every suffering flow whose explanation names it, in the order named.
  const remedies = new Map<string, { remedy: Remedy; flows: string[] }>();
  for (const explanation of input.explanations) {
    for (const remedy of explanation.remedies) {
      const entry = remedies.get(remedyKey(remedy)) ?? { remedy, flows: [] };
      entry.flows.push(explanation.flow);
      remedies.set(remedyKey(remedy), entry);
    }
  }
  const out: Suggestion[] = [];
  let tried = 0;
  for (const { remedy, flows } of remedies.values()) {
    if (out.length >= MAX_SUGGESTIONS || tried >= MAX_TRIED) break;
    const built = await build(remedy, input);
    if (built === undefined) continue;
    tried++;
    const after = buildReport(
      runSimulation({
        loaded: built.loaded,
        seed: input.seed,
        auditLog: input.auditLog,
        auditGrouping: input.auditGrouping,
      }),
    );
    const effect = effectOf(input.report, after);
    // Shown only when the run says it helps a flow it is meant for.
    const helped = flows.filter((f) => effect[f]?.change === 'better');
    if (helped.length === 0) continue;
    out.push({ for: helped, kind: remedy.kind, title: built.title, changes: built.changes, manifest: built.manifest, effect });
  }
  return out;
}

async function build(
  remedy: Remedy,
  input: SuggestionInput,
): Promise<{ title: string; changes: string[]; manifest: string; loaded: LoadedScenario } | undefined> {
  if (remedy.kind === 'paginate') {
    const spec = input.loaded.scenario.flows.find((f) => f.name === remedy.flow);
    if (spec === undefined) return undefined;
    const objects = spec.objects ?? input.loaded.scenario.objectCounts[spec.apiGroup === '' ? spec.resource : `${spec.resource}.${spec.apiGroup}`] ?? 0;
    const pages = Math.max(1, Math.ceil(objects / remedy.limit));
    const paged = paginated(spec, remedy.limit, pages);
    const loaded = {
      ...input.loaded,
      scenario: { ...input.loaded.scenario, flows: input.loaded.scenario.flows.map((f) => (f.name === spec.name ? paged : f)) },
    };
    const manifest =
      `# Client change, not a manifest: ${spec.name} lists ${objects} objects in pages of ${remedy.limit} (?limit=${remedy.limit} and the continue token;\n` +
      `# client-go: a pager, or ListOptions{Limit: ${remedy.limit}}). Simulated as ${pages} requests per LIST, each ${pages}× shorter:\n` +
      stringify({ flows: [{ name: spec.name, query: { ...spec.query, limit: String(remedy.limit) } }] }, { lineWidth: 0 });
    return {
      title: `Paginate the LISTs of ${spec.name} (limit ${remedy.limit})`,
      changes: [`${spec.name}: ?limit=${remedy.limit}, ${pages} pages per LIST`],
      manifest,
      loaded,
    };
  }
  const changes = remedy.kind === 'dedicated-level' ? { createFor: [remedy.flow] } : { modify: [remedy.level] };
  const built = buildSpace(input.loaded, { file: 'suggestion', objectives: [], changes }, [{ seed: input.seed, digest: digestOf(input.report) }]);
  if (!built.ok) return undefined;
  const { space } = built;
  let candidate: Candidate;
  if (remedy.kind === 'dedicated-level') {
    const target = space.dedicatable.get(remedy.flow);
    if (target === undefined) return undefined;
    candidate = { levels: {}, dedicated: { [remedy.flow]: { shares: sharesForSeats(Math.ceil(2 * target.demandSeats), space), queueLengthLimit: 50 } } };
  } else {
    if (!space.levels.has(remedy.level)) return undefined;
    const p = levelParams({ levels: {}, dedicated: {} }, space, remedy.level);
    if (remedy.kind === 'more-shares') candidate = { levels: { [remedy.level]: { shares: p.shares * 2 } }, dedicated: {} };
    else if (remedy.kind === 'more-queues') {
      // Four times the queues, the hand unchanged (a wider hand would lower maxSeats), within what a dealer accepts.
      const queues = p.queues === undefined ? undefined : Math.min(MAX_SUGGESTED_QUEUES, 4 * p.queues);
      if (queues === undefined || queues <= p.queues! || dealerParameterError(queues, p.handSize ?? 1) !== undefined) return undefined;
      candidate = { levels: { [remedy.level]: { queues } }, dedicated: {} };
    } else if (p.queueLengthLimit !== undefined) candidate = { levels: { [remedy.level]: { queueLengthLimit: p.queueLengthLimit * 4 } }, dedicated: {} };
    else return undefined;
  }
  const load = await loadScenarioFile(input.scenarioFile, { extraFiles: input.variantFiles, extraObjects: candidateObjects(candidate, space, 'suggestion') });
  if (!load.ok) return undefined;
  const manifest = candidateManifests(candidate, space)
    .map((m) => `---\n${stringify(m, { lineWidth: 0 })}`)
    .join('');
  const title =
    remedy.kind === 'dedicated-level'
      ? `Give ${remedy.flow} a priority level of its own`
      : remedy.kind === 'more-shares'
        ? `Double the nominalConcurrencyShares of ${remedy.level}`
        : remedy.kind === 'more-queues'
          ? `More queues for ${remedy.level}`
          : `Longer queues for ${remedy.level}`;
  return { title, changes: describeCandidate(candidate, space), manifest, loaded: load.loaded };
}

/** The same flow paging its LIST: `pages` requests for each one, each that much shorter. */
function paginated(spec: FlowSpec, limit: number, pages: number): FlowSpec {
  const arrival = { ...spec.arrival, ratePerSecond: spec.arrival.ratePerSecond * pages };
  const s = spec.service;
  const service =
    s.type === 'constant'
      ? { ...s, valueMs: s.valueMs / pages }
      : s.type === 'exponential'
        ? { ...s, meanMs: s.meanMs / pages }
        : { ...s, medianMs: s.medianMs / pages, p99Ms: s.p99Ms / pages };
  return { ...spec, query: { ...spec.query, limit: String(limit) }, arrival, service };
}

function effectOf(before: SimulationReport, after: SimulationReport): Suggestion['effect'] {
  const effect: Suggestion['effect'] = {};
  for (const [name, b] of Object.entries(before.flows)) {
    const a = after.flows[name];
    if (a === undefined) continue;
    const of = (f: typeof b): FlowEffect => ({
      rejectedFraction: f.arrived === 0 ? null : Number((f.rejectedTotal / f.arrived).toFixed(6)),
      waitP99Seconds: f.waitSeconds.p99,
      latencyP99Seconds: f.latencySeconds.p99,
    });
    const x = of(b);
    const y = of(a);
    effect[name] = { before: x, after: y, change: changeOf(x, y) };
  }
  return effect;
}

/**
 * Better or worse by half a percentage point of rejections, or a fifth (and a millisecond) of p99
 * wait; worse, too, when its p99 latency rose that much while its wait did not fall (the capacity
 * model's cost of more heavy work at once, paid in execution time).
 */
export function changeOf(before: FlowEffect, after: FlowEffect): 'better' | 'worse' | 'same' {
  const dr = (after.rejectedFraction ?? 0) - (before.rejectedFraction ?? 0);
  const moved = (b: number | null, a: number | null) => {
    const x = b ?? 0;
    const y = a ?? 0;
    return x - y > Math.max(0.001, 0.2 * x) ? -1 : y - x > Math.max(0.001, 0.2 * x) ? 1 : 0;
  };
  const wait = moved(before.waitP99Seconds, after.waitP99Seconds);
  const latency = moved(before.latencyP99Seconds, after.latencyP99Seconds);
  if (dr > 0.005 || ((wait > 0 || (latency > 0 && wait === 0)) && dr >= 0)) return 'worse';
  if (dr < -0.005 || wait < 0) return 'better';
  return 'same';
}
