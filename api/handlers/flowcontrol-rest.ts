// The object semantics of one flowcontrol kind behind the HTTP verbs (kube-apiserver's generic
// registry Store with the PLC/FS strategies): create, update, status update, delete with
// finalizers, delete collection, each with dry run. HTTP parsing and encoding live in the
// handlers; this module sees decoded objects and parsed options only.
//
// Order of one write, as in kube-apiserver: the caller's object → defaulting → the strategy's
// prepare step (server-set fields, status or spec kept from the stored object) → validation (422)
// → managedFields bookkeeping → canonical key order → the store (optimistic concurrency there).
import { randomInt } from 'node:crypto';
import type { KindInfo } from '../../engine/resources/kinds.ts';
import { prepareForCreate, prepareForStatusUpdate, prepareForUpdate } from '../../engine/resources/strategy.ts';
import type { FieldError } from '../../engine/resources/field-errors.ts';
import type { KubeObject, Status } from '../../engine/resources/types.ts';
import { conflictError, isStoreErrorCode, preconditionError } from '../../engine/store/store-errors.ts';
import type { ListOptions, ListResult, Preconditions, ResourceStore } from '../../engine/store/store-types.ts';
import { resourcePrefix } from '../../engine/store/store.ts';
import { alreadyExists, ApiError, badRequest, invalid } from '../errors.ts';
import { canonicalOrder } from './canonical-order.ts';
import { shapeOf } from './decode.ts';
import { deletionFinalizers, markAsDeleting } from '../../engine/resources/deletion.ts';
import type { DeleteOptions } from './query.ts';

export type Subresource = '' | 'status';

/** managedFields bookkeeping for a non-apply write (the patch package provides the real one). */
export interface ManagedFieldsRecorder {
  /** `next` with managedFields updated for an Update by `manager` (previous undefined on create). */
  recordUpdate(previous: KubeObject | undefined, next: KubeObject, manager: string, subresource: Subresource): KubeObject;
}

export interface FlowcontrolRestDeps {
  store: ResourceStore;
  kind: KindInfo<never>;
  /** `flowcontrol.apiserver.k8s.io/v1`. */
  apiVersion: string;
  group: string;
  newUid: () => string;
  /** Wall-clock epoch milliseconds (creationTimestamp, deletionTimestamp). */
  nowMs: () => number;
  managedFields: ManagedFieldsRecorder;
}

/** Validating admission (api/filters/admission.ts `admissionHook`): throws the refusal's ApiError. */
export type Admit = (operation: 'CREATE' | 'UPDATE' | 'DELETE', object: KubeObject | undefined, oldObject: KubeObject | undefined) => void;

export interface WriteContext {
  dryRun: boolean;
  /** Runs validating admission on the object about to be stored. */
  admit?: Admit;
  /** The field manager after defaulting from the User-Agent. */
  manager: string;
  /** False when the caller (server-side apply) has already set managedFields. */
  recordManagedFields?: boolean;
  /** Server-side apply: its managedFields are the point of the write, so a too-large object is not retried without them. */
  serverSideApply?: boolean;
  /** The request's deadline or disconnect: an update still retrying or waiting its turn stops, as kube's context does. */
  signal?: AbortSignal;
}

/** Produces the caller's new object from the stored one (PUT ignores it, PATCH applies to it). */
export type Produce = (current: KubeObject) => KubeObject | Promise<KubeObject>;

export type DeleteOutcome = { type: 'deleted'; status: Status; object: KubeObject } | { type: 'pending'; object: KubeObject; accepted: boolean };

// Kubernetes' SimpleNameGenerator: 5 characters from an alphabet without vowels or look-alikes.
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATED_SUFFIX_LENGTH = 5;
const MAX_GENERATED_BASE_LENGTH = 63 - GENERATED_SUFFIX_LENGTH;

/** Thrown out of a delete's read-modify-write when no finalizer is left (Kubernetes' errDeleteNow). */
const DELETE_NOW = Symbol('delete now');

export function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return `${base.slice(0, MAX_GENERATED_BASE_LENGTH)}${suffix}`;
}

export class FlowcontrolRest {
  constructor(private readonly deps: FlowcontrolRestDeps) {}

  get resource(): string {
    return this.deps.kind.resource;
  }

  get store(): ResourceStore {
    return this.deps.store;
  }

  /** POST: the created object (dry run: what would have been created, with no resourceVersion). */
  async create(object: KubeObject, context: WriteContext): Promise<KubeObject> {
    const { kind } = this.deps;
    const metadata = { ...(object.metadata ?? {}) };
    if ((metadata.name ?? '') === '' && (metadata.generateName ?? '') !== '') metadata.name = generateName(metadata.generateName!);
    const resourceVersion = metadata.resourceVersion ?? '';
    if (resourceVersion !== '' && resourceVersion !== '0') throw new ApiError(badRequest('resourceVersion should not be set on objects to be created'));
    let next = kind.applyDefaults({ ...object, metadata } as never) as KubeObject;
    next = prepareForCreate(next, { uid: this.deps.newUid(), nowMs: this.deps.nowMs() });
    const name = next.metadata?.name ?? '';
    this.validate(kind.validateCreate(next as never), name);
    context.admit?.('CREATE', next, undefined);
    if (context.recordManagedFields !== false) next = this.deps.managedFields.recordUpdate(undefined, next, context.manager, '');
    next = this.finish(next);
    if (context.dryRun) {
      // Existence is checked as a real create would check it (409 AlreadyExists).
      const exists = await this.deps.store.get(name).then(
        () => true,
        (error: unknown) => {
          if (isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND')) return false;
          throw error;
        },
      );
      if (exists) throw new ApiError(alreadyExists({ group: this.deps.group, resource: kind.resource }, name));
      return next;
    }
    try {
      return await this.deps.store.create(next);
    } catch (error) {
      if (!mayRetryWithoutManagedFields(error, next, context)) throw error;
      return this.deps.store.create(withoutManagedFields(next));
    }
  }

  /**
   * PUT, PATCH and their /status forms: `produce` gives the caller's object from the stored one.
   * Throws 404 for a missing object (no create on update for these kinds).
   */
  async update(name: string, subresource: Subresource, produce: Produce, context: WriteContext, preconditions?: Preconditions): Promise<KubeObject> {
    const tryUpdate = async (current: KubeObject): Promise<KubeObject> => {
      const given = await produce(current);
      return this.prepareUpdate(given, current, subresource, context);
    };
    if (context.dryRun) {
      const current = await this.deps.store.get(name);
      checkPreconditions(this.deps, current, preconditions);
      const next = await tryUpdate(current);
      return withResourceVersion(next, current.metadata?.resourceVersion);
    }
    const options = { ...(preconditions === undefined ? {} : { preconditions }), ...(context.signal === undefined ? {} : { signal: context.signal }) };
    let result: KubeObject;
    let stored: KubeObject | undefined;
    try {
      result = await this.deps.store.guaranteedUpdate(name, async (current) => (stored = await tryUpdate(current)), options);
    } catch (error) {
      if (stored === undefined || !mayRetryWithoutManagedFields(error, stored, context)) throw error;
      result = await this.deps.store.guaranteedUpdate(name, async (current) => withoutManagedFields(await tryUpdate(current)), options);
    }
    return this.deleteIfFinalized(result);
  }

  /** A PUT body: the object replaces the stored one unless its resourceVersion is stale (409). */
  replaceWith(object: KubeObject): Produce {
    const name = object.metadata?.name ?? '';
    const expected = object.metadata?.resourceVersion ?? '';
    return (current) => {
      if (expected !== '' && expected !== current.metadata?.resourceVersion) throw conflictError(this.naming, name);
      return object;
    };
  }

  /**
   * DELETE of one object, as kube-apiserver's generic store does it: the options set the garbage
   * collector's finalizer (Orphan, Foreground); an object left with any finalizer is marked for
   * deletion and returned, one without is removed at once.
   */
  async delete(name: string, options: DeleteOptions, admit?: Admit): Promise<DeleteOutcome> {
    const current = await this.deps.store.get(name);
    checkPreconditions(this.deps, current, options.preconditions);
    admit?.('DELETE', undefined, current);
    const accepted = options.orphanDependents === false;
    const existing = current.metadata?.finalizers ?? [];
    if (existing.length > 0 || deletionFinalizers(existing, options).changed) {
      const mark = (stored: KubeObject): KubeObject => {
        const { changed, finalizers } = deletionFinalizers(stored.metadata?.finalizers ?? [], options);
        if (finalizers.length === 0) throw DELETE_NOW;
        const next = markAsDeleting(stored, this.deps.nowMs());
        const metadata = { ...next.metadata };
        if (changed) metadata.finalizers = finalizers;
        delete metadata.resourceVersion;
        return canonicalOrder({ ...next, metadata }, shapeOf(this.deps.kind.kind));
      };
      try {
        if (options.dryRun) return { type: 'pending', object: withResourceVersion(mark(current), current.metadata?.resourceVersion), accepted };
        const marked = await this.deps.store.guaranteedUpdate(name, mark, options.preconditions === undefined ? {} : { preconditions: options.preconditions });
        return { type: 'pending', object: marked, accepted };
      } catch (error) {
        // The options took the last finalizer off: the object goes now.
        if (error !== DELETE_NOW) throw error;
      }
    }
    const deleted = options.dryRun
      ? current
      : await this.deps.store.delete(name, options.preconditions === undefined ? {} : { preconditions: options.preconditions });
    return { type: 'deleted', status: this.deleteSuccess(name, deleted.metadata?.uid ?? ''), object: deleted };
  }

  /**
   * DELETE of the collection, as kube-apiserver's DeleteCollection: the listed objects (one page
   * when a limit is given, with its continue token and remaining count) each deleted as a single
   * DELETE would be; the answer is that list as it was listed.
   */
  async deleteCollection(listOptions: ListOptions, options: DeleteOptions, admit?: Admit): Promise<ListResult> {
    const list = await this.deps.store.list(listOptions);
    for (const item of list.items) {
      try {
        await this.delete(item.metadata?.name ?? '', options, admit);
      } catch (error) {
        // Deleted by someone else meanwhile: that is what was asked for.
        if (!isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND')) throw error;
      }
    }
    return list;
  }

  private get naming() {
    return { group: this.deps.group, resource: this.deps.kind.resource, kind: this.deps.kind.kind };
  }

  private deleteSuccess(name: string, uid: string): Status {
    const details: Status['details'] = { name, group: this.deps.group, kind: this.deps.kind.resource };
    if (uid !== '') details.uid = uid;
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  }

  private prepareUpdate(given: KubeObject, current: KubeObject, subresource: Subresource, context: WriteContext): KubeObject {
    const { kind } = this.deps;
    const defaulted = kind.applyDefaults(given as never) as KubeObject;
    let next: KubeObject;
    let errors;
    if (subresource === 'status') {
      next = prepareForStatusUpdate(defaulted, current);
      errors = kind.validateStatusUpdate(next as never, current as never);
    } else {
      next = prepareForUpdate(kind as KindInfo<KubeObject>, defaulted, current);
      errors = kind.validateUpdate(next as never, current as never);
    }
    this.validate(errors, current.metadata?.name ?? '');
    context.admit?.('UPDATE', next, current);
    if (context.recordManagedFields !== false) next = this.deps.managedFields.recordUpdate(current, next, context.manager, subresource);
    return this.finish(next);
  }

  private validate(errors: readonly FieldError[], name: string): void {
    if (errors.length > 0) throw new ApiError(invalid({ group: this.deps.group, kind: this.deps.kind.kind }, name, errors));
  }

  /** Type meta set, resourceVersion left to the store, keys in canonical order. */
  private finish(object: KubeObject): KubeObject {
    const next: KubeObject = { ...object, kind: this.deps.kind.kind, apiVersion: this.deps.apiVersion };
    if (next.metadata !== undefined) {
      const { resourceVersion: _rv, ...metadata } = next.metadata;
      next.metadata = metadata;
    }
    return canonicalOrder(next, shapeOf(this.deps.kind.kind));
  }

  /** An update that removed the last finalizer of an object being deleted completes the deletion. */
  private async deleteIfFinalized(object: KubeObject): Promise<KubeObject> {
    const metadata = object.metadata ?? {};
    if (metadata.deletionTimestamp === undefined || (metadata.finalizers ?? []).length > 0) return object;
    try {
      return await this.deps.store.delete(metadata.name ?? '', { preconditions: { resourceVersion: metadata.resourceVersion ?? '' } });
    } catch (error) {
      // Changed or deleted meanwhile: whoever did it owns the outcome.
      if (isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND') || isStoreErrorCode(error, 'FW_ERR_STORE_PRECONDITION_FAILED')) return object;
      throw error;
    }
  }
}

/**
 * kube-apiserver's create, update and patch handlers (not server-side apply) try once more without
 * managedFields, which can be large, when the store refused the object as too large.
 */
function mayRetryWithoutManagedFields(error: unknown, attempted: KubeObject, context: WriteContext): boolean {
  return isStoreErrorCode(error, 'FW_ERR_STORE_REQUEST_TOO_LARGE') && context.serverSideApply !== true && attempted.metadata?.managedFields !== undefined;
}

function withoutManagedFields(object: KubeObject): KubeObject {
  if (object.metadata?.managedFields === undefined) return object;
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

function withResourceVersion(object: KubeObject, resourceVersion: string | undefined): KubeObject {
  if (resourceVersion === undefined) return object;
  return { ...object, metadata: { ...object.metadata, resourceVersion } };
}

function checkPreconditions(deps: FlowcontrolRestDeps, current: KubeObject, preconditions: Preconditions | undefined): void {
  if (preconditions === undefined) return;
  const meta = current.metadata ?? {};
  const naming = { group: deps.group, resource: deps.kind.resource, kind: deps.kind.kind };
  const key = `${resourcePrefix(naming)}${meta.name ?? ''}`;
  if (preconditions.uid !== undefined && preconditions.uid !== (meta.uid ?? '')) {
    throw preconditionError(naming, meta.name ?? '', key, 'UID', preconditions.uid, meta.uid ?? '');
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== (meta.resourceVersion ?? '')) {
    throw preconditionError(naming, meta.name ?? '', key, 'ResourceVersion', preconditions.resourceVersion, meta.resourceVersion ?? '');
  }
}
