// What the benchmarks share: the ~1 KB PriorityLevelConfiguration every storage benchmark writes
// (so their figures compare), the store's view of its resource, and the table printer.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../engine/resources/types.ts';
import type { ResourceInfo } from '../engine/store/store-types.ts';

export const BENCH_PLC: ResourceInfo = {
  group: 'flowcontrol.apiserver.k8s.io',
  resource: 'prioritylevelconfigurations',
  kind: 'PriorityLevelConfiguration',
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
};

/** A PriorityLevelConfiguration as the API layer stores it: about 1 KB of JSON. */
export function benchPriorityLevel(i: number, namePrefix = 'level'): KubeObject {
  return {
    apiVersion: BENCH_PLC.apiVersion,
    kind: BENCH_PLC.kind,
    metadata: {
      name: `${namePrefix}-${String(i).padStart(6, '0')}`,
      uid: `3f0c7a5e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      generation: 1,
      creationTimestamp: '2026-11-21T05:11:26Z',
      labels: { team: `team-${i % 7}` },
      annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true', note: `bench object ${i} `.repeat(8) },
      managedFields: [
        {
          manager: 'api-priority-and-fairness-config-producer-v1',
          operation: 'Update',
          apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
          time: '2026-11-21T05:11:26Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:type': {}, 'f:limited': { 'f:nominalConcurrencyShares': {}, 'f:lendablePercent': {} } } },
        },
      ],
    },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 30,
        limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } },
        lendablePercent: 33,
      },
    },
    status: {
      conditions: [{ type: 'ConcurrencyShared', status: 'True', lastTransitionTime: '2026-11-21T05:11:26Z', reason: 'Bench', message: 'x'.repeat(120) }],
    },
  };
}

export function table(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\n${title}\n${rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n')}\n`);
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** A process's CPU time (user + system) in seconds, from /proc/<pid>/stat. */
export function processCpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** CPU seconds (user + system) in a /proc stat file: a process's, or one thread's (/proc/<pid>/task/<tid>/stat). */
export function statCpuSeconds(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the file (utime, stime) are 12 and 13 after the command name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The CPU time (seconds) of a process's main thread alone, from /proc/<pid>/task/<pid>/stat: set
 * beside the process's total it says how much a server spends on other threads (V8's GC helpers,
 * worker threads, libuv's pool), which a profile of the main thread does not show.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}

/**
 * Keeps process `pid` (every thread it has now; later ones inherit it) on `cpus` (taskset's list
 * form, e.g. `0`). False when taskset is missing or refuses: the process stays where it was.
 */
export function pinToCpus(pid: number, cpus: string): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' }).status === 0;
}
