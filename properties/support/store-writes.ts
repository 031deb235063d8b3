// The write commands of the store model run: create, update, guaranteedUpdate and delete, with
// preconditions, stale and garbage resourceVersions and refused names. Each computes the expected
// outcome from the model, checks the store's, and only then records the write in the model.

import * as assert from 'uvu/assert';
import type { KubeObject } from '../../engine/resources/types.ts';
import type { Preconditions } from '../../engine/store/store-types.ts';
import { attempt, expectFailure, expectObject, isBadName, resolve, showRef, type Command, type NameRef } from './store-command-kit.ts';
import { buildObject, commit, expected, observed, sameContent, type Kind, type Labels, type ModelObject, type StoreModel } from './store-model.ts';
import type { RealStore } from './store-real.ts';

export type PreconditionMode = 'none' | 'uid-ok' | 'uid-wrong' | 'rv-ok' | 'rv-wrong';

function preconditionsFor(mode: PreconditionMode, current: ModelObject | undefined): { preconditions?: Preconditions } {
  const uid = current?.uid ?? 'u-none';
  const rv = current?.rv ?? 1;
  switch (mode) {
    case 'none':
      return {};
    case 'uid-ok':
      return { preconditions: { uid } };
    case 'uid-wrong':
      return { preconditions: { uid: `${uid}-other` } };
    case 'rv-ok':
      return { preconditions: { resourceVersion: String(rv) } };
    case 'rv-wrong':
      return { preconditions: { resourceVersion: String(rv + 1) } };
  }
}

/** Writes `next` over `current` in the model, unless nothing changed (then nothing is written). */
function modelUpdate(m: StoreModel, kind: Kind, current: ModelObject, next: Omit<ModelObject, 'rv'>): ModelObject {
  if (sameContent(current, next)) return current;
  commit(m, kind, current.name, next);
  return m.objects[kind].get(current.name)!;
}

export class Create implements Command {
  constructor(
    readonly kind: Kind,
    readonly name: string,
    readonly labels: Labels | undefined,
    readonly value: number,
  ) {}
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const uid = `u${m.uids + 1}`;
    const outcome = await attempt(() => r.resources[this.kind].create(buildObject(this.kind, this.name, uid, this.labels, this.value)));
    if (isBadName(this.name)) return expectFailure(outcome, 'FW_ERR_STORE_BAD_NAME', String(this));
    if (m.objects[this.kind].has(this.name)) return expectFailure(outcome, 'FW_ERR_STORE_ALREADY_EXISTS', String(this));
    m.uids++;
    commit(m, this.kind, this.name, { name: this.name, uid, labels: this.labels, value: this.value });
    expectObject(outcome, m.objects[this.kind].get(this.name)!, String(this));
  }
  toString = () => `create ${this.kind}/${this.name} ${JSON.stringify(this.labels ?? {})} v${this.value}`;
}

export type RvMode = 'unset' | 'current' | 'stale' | 'garbage';

export class Update implements Command {
  constructor(
    readonly kind: Kind,
    readonly ref: NameRef,
    readonly labels: Labels | undefined,
    readonly value: number,
    readonly rvMode: RvMode,
    readonly newUid: boolean,
  ) {}
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const name = resolve(m, this.kind, this.ref);
    const current = m.objects[this.kind].get(name);
    const uid = this.newUid || current === undefined ? `u-set-${this.value}` : current.uid;
    const object = buildObject(this.kind, name, uid, this.labels, this.value);
    const currentRv = current?.rv ?? 7;
    const staleRv = currentRv > 1 ? currentRv - 1 : currentRv + 1;
    const rv = { unset: undefined, current: String(currentRv), stale: String(staleRv), garbage: 'abc' }[this.rvMode];
    if (rv !== undefined) object.metadata!.resourceVersion = rv;
    const outcome = await attempt(() => r.resources[this.kind].update(object));
    if (this.rvMode === 'garbage') return expectFailure(outcome, 'FW_ERR_STORE_INVALID_RESOURCE_VERSION', String(this));
    if (current === undefined) return expectFailure(outcome, 'FW_ERR_STORE_NOT_FOUND', String(this));
    if (this.rvMode === 'stale') return expectFailure(outcome, 'FW_ERR_STORE_CONFLICT', String(this));
    expectObject(outcome, modelUpdate(m, this.kind, current, { name, uid, labels: this.labels, value: this.value }), String(this));
  }
  toString = () =>
    `update ${this.kind}/${showRef(this.ref)} ${JSON.stringify(this.labels ?? {})} v${this.value} rv=${this.rvMode}${this.newUid ? ' new-uid' : ''}`;
}

export class GuaranteedUpdate implements Command {
  constructor(
    readonly kind: Kind,
    readonly ref: NameRef,
    readonly labels: Labels | undefined,
    readonly value: number,
    readonly precondition: PreconditionMode,
  ) {}
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const name = resolve(m, this.kind, this.ref);
    const current = m.objects[this.kind].get(name);
    let seen: KubeObject | undefined;
    const outcome = await attempt(() =>
      r.resources[this.kind].guaranteedUpdate(
        name,
        (now) => {
          seen = now;
          return buildObject(this.kind, name, now.metadata?.uid ?? '', this.labels, this.value);
        },
        preconditionsFor(this.precondition, current),
      ),
    );
    if (current === undefined) return expectFailure(outcome, 'FW_ERR_STORE_NOT_FOUND', String(this));
    if (this.precondition.endsWith('wrong')) return expectFailure(outcome, 'FW_ERR_STORE_PRECONDITION_FAILED', String(this));
    assert.equal(seen === undefined ? undefined : observed(seen), expected(current), `${this}: tryUpdate saw`);
    expectObject(outcome, modelUpdate(m, this.kind, current, { name, uid: current.uid, labels: this.labels, value: this.value }), String(this));
  }
  toString = () => `guaranteedUpdate ${this.kind}/${showRef(this.ref)} ${JSON.stringify(this.labels ?? {})} v${this.value} precondition=${this.precondition}`;
}

export class Delete implements Command {
  constructor(
    readonly kind: Kind,
    readonly ref: NameRef,
    readonly precondition: PreconditionMode,
  ) {}
  check = () => true;
  async run(m: StoreModel, r: RealStore): Promise<void> {
    const name = resolve(m, this.kind, this.ref);
    const current = m.objects[this.kind].get(name);
    const outcome = await attempt(() => r.resources[this.kind].delete(name, preconditionsFor(this.precondition, current)));
    if (isBadName(name)) return expectFailure(outcome, 'FW_ERR_STORE_BAD_NAME', String(this));
    if (current === undefined) return expectFailure(outcome, 'FW_ERR_STORE_NOT_FOUND', String(this));
    if (this.precondition.endsWith('wrong')) return expectFailure(outcome, 'FW_ERR_STORE_PRECONDITION_FAILED', String(this));
    const revision = commit(m, this.kind, name, undefined);
    // The last state, at the deletion's revision.
    expectObject(outcome, { ...current, rv: revision }, String(this));
  }
  toString = () => `delete ${this.kind}/${showRef(this.ref)} precondition=${this.precondition}`;
}
