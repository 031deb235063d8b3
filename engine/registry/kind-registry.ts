// The registry of one kind (kube-apiserver's generic registry Store with the kind's strategy): the
// object semantics behind the API's verbs — create, update, status update, delete with
// finalizers, delete collection, each with dry run. It sees decoded objects and parsed options;
// decoding requests and encoding answers is the API's, and so is turning its errors into `Status`.
//
// Order of one write, as in kube-apiserver: the caller's object → defaulting → the strategy's
// prepare step (server-set fields, status or spec kept from the stored object) → validation →
// validating admission → managedFields bookkeeping → canonical key order → the store (optimistic
// concurrency there).
import type { AdmissionChain, AdmissionOperation } from '../auth/admission/admission.ts';
import { canonicalOrder } from '../resources/canonical-order.ts';
import { deletionFinalizers, markAsDeleting } from '../resources/deletion.ts';
import type { FlowcontrolKind } from '../resources/types.ts';
import type { FieldError } from '../resources/field-errors.ts';
import { asKind, type KindInfo } from '../resources/kinds.ts';
import { decodingShape } from '../resources/schema/decoding-shape.ts';
import { prepareForCreate, prepareForStatusUpdate, prepareForUpdate } from '../resources/strategy.ts';
import type { FlowcontrolObject, KubeObject, Status } from '../resources/types.ts';
import type { Shape } from '../resources/schema-decoder.ts';
import { alreadyExistsError, conflictError, isStoreErrorCode, preconditionError, type ResourceNaming } from '../store/store-errors.ts';
import type { ListOptions, ListResult, Preconditions, ResourceStore } from '../store/store-types.ts';
import { resourcePrefix } from '../store/store.ts';
import { admitWrite, type Requester } from './requester.ts';
import { RegistryError } from './registry-errors.ts';
import { formatRfc3339 } from '../clock.ts';
import { APPLY_PATCH } from '../patch/index.ts';
import type { ManagedFieldsRecorder, PatchApplier, PatchCommand, Subresource } from '../patch/patch-applier.ts';
import type { DeleteOptions } from './delete-options.ts';

// The registry's words for what the patch package (below it) defines.

export interface KindRegistryDeps<T extends FlowcontrolObject> {
  store: ResourceStore;
  kind: KindInfo<T>;
  /** `flowcontrol.apiserver.k8s.io/v1`. */
  apiVersion: string;
  group: string;
  newUid: () => string;
  /** A uniform integer in [0, n): the random part of generated names (injected, as all randomness is). */
  randomInt: (n: number) => number;
  /** Wall-clock epoch milliseconds (creationTimestamp, deletionTimestamp). */
  nowMs: () => number;
  managedFields: ManagedFieldsRecorder;
  /** A PATCH applied to the stored object, managedFields set (engine/patch/patch-applier.ts, through the execution plane). */
  applyPatch: PatchApplier;
  /** Validating admission, run on every write just before the store; none configured: every write is admitted. */
  admission?: AdmissionChain;
}

export interface WriteContext {
  dryRun: boolean;
  /** The field manager after defaulting from the User-Agent. */
  manager: string;
  /** Who writes, as admission sees them. */
  requester: Requester;
  /** False when the object comes with its managedFields set: every PATCH (`patch` sets it). */
  recordManagedFields?: boolean;
  /** Server-side apply: its managedFields are the point of the write, so a too-large object is not retried without them. */
  serverSideApply?: boolean;
  /** The request's deadline or disconnect: an update still retrying or waiting its turn stops, as kube's context does. */
  signal?: AbortSignal;
}

/** Produces the caller's new object from the stored one (PUT ignores it, PATCH applies to it). */
export type Produce = (current: KubeObject) => KubeObject | Promise<KubeObject>;

/** What a PATCH stored: the object, whether server-side apply created it, the patch's warnings. */
export interface PatchOutcome {
  object: KubeObject;
  created: boolean;
  warnings: string[];
}

export type DeleteOutcome = { type: 'deleted'; status: Status; object: KubeObject } | { type: 'pending'; object: KubeObject; accepted: boolean };

/** What the API's handlers call, whichever kind is behind it. */
export interface ObjectRegistry {
  readonly kind: FlowcontrolKind;
  readonly listKind: string;
  readonly resource: string;
  readonly store: ResourceStore;
  create(object: KubeObject, context: WriteContext): Promise<KubeObject>;
  update(name: string, subresource: Subresource, produce: Produce, context: WriteContext, preconditions?: Preconditions): Promise<KubeObject>;
  replaceWith(object: KubeObject): Produce;
  patch(command: PatchCommand, context: WriteContext): Promise<PatchOutcome>;
  delete(name: string, options: DeleteOptions, requester: Requester): Promise<DeleteOutcome>;
  deleteCollection(listOptions: ListOptions, options: DeleteOptions, requester: Requester): Promise<ListResult>;
}

// Kubernetes' SimpleNameGenerator: 5 characters from an alphabet without vowels or look-alikes.
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATED_SUFFIX_LENGTH = 5;
const MAX_GENERATED_BASE_LENGTH = 63 - GENERATED_SUFFIX_LENGTH;

/** Thrown out of a delete's read-modify-write when no finalizer is left (Kubernetes' errDeleteNow). */
const DELETE_NOW = Symbol('delete now');

export function generateName(base: string, randomInt: (n: number) => number): string {
  let suffix = '';
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return `${base.slice(0, MAX_GENERATED_BASE_LENGTH)}${suffix}`;
}

export class KindRegistry<T extends FlowcontrolObject> implements ObjectRegistry {
  private readonly naming: ResourceNaming;
  private readonly shape: Shape;
  /** The kind as admission names it: `{group, version, kind}`. */
  private readonly admissionKind: { group: string; version: string; kind: string };

  constructor(private readonly deps: KindRegistryDeps<T>) {
    this.naming = { group: deps.group, resource: deps.kind.resource, kind: deps.kind.kind };
    this.shape = decodingShape(deps.kind.table.struct);
    const [group = '', version = ''] = deps.apiVersion.split('/');
    this.admissionKind = { group, version, kind: deps.kind.kind };
  }

  get kind(): FlowcontrolKind {
    return this.deps.kind.kind;
  }

  get listKind(): string {
    return this.deps.kind.listKind;
  }

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
    if ((metadata.name ?? '') === '' && (metadata.generateName ?? '') !== '') metadata.name = generateName(metadata.generateName!, this.deps.randomInt);
    const resourceVersion = metadata.resourceVersion ?? '';
    if (resourceVersion !== '' && resourceVersion !== '0') throw new RegistryError({ code: 'FW_ERR_REGISTRY_RESOURCE_VERSION_ON_CREATE' });
    const next = prepareForCreate(kind.applyDefaults(this.typed({ ...object, metadata })), { uid: this.deps.newUid(), nowMs: this.deps.nowMs() });
    const name = next.metadata?.name ?? '';
    this.validate(kind.validateCreate(next), name);
    let stored = this.untyped(next);
    this.admit('CREATE', stored, undefined, context.requester);
    if (context.recordManagedFields !== false) stored = this.deps.managedFields.recordUpdate(undefined, stored, context.manager, '');
    stored = this.finish(stored);
    if (context.dryRun) {
      // Existence is checked as a real create would check it (409 AlreadyExists).
      const exists = await this.deps.store.get(name).then(
        () => true,
        (error: unknown) => {
          if (isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND')) return false;
          throw error;
        },
      );
      if (exists) throw alreadyExistsError(this.naming, name);
      return stored;
    }
    try {
      return await this.deps.store.create(stored);
    } catch (error) {
      if (!mayRetryWithoutManagedFields(error, stored, context)) throw error;
      return this.deps.store.create(withoutManagedFields(stored));
    }
  }

  /**
   * PUT, PATCH and their /status forms: `produce` gives the caller's object from the stored one.
   * Throws NotFound for a missing object (no create on update for these kinds).
   */
  async update(name: string, subresource: Subresource, produce: Produce, context: WriteContext, preconditions?: Preconditions): Promise<KubeObject> {
    const tryUpdate = async (current: KubeObject): Promise<KubeObject> => {
      const given = await produce(current);
      return this.prepareUpdate(given, current, subresource, context);
    };
    if (context.dryRun) {
      const current = await this.deps.store.get(name);
      this.checkPreconditions(current, preconditions);
      const next = await tryUpdate(current);
      return withResourceVersion(next, current.metadata?.resourceVersion);
    }
    const options = { preconditions, signal: context.signal };
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

  /**
   * PATCH and its /status form: the patch applied to the stored object by the applier this registry
   * was built with, then the steps of an update. Server-side apply creates what does not exist yet
   * (not through /status), as kube's Update with forceAllowCreate does.
   */
  async patch(command: PatchCommand, context: WriteContext): Promise<PatchOutcome> {
    const { kind, apiVersion } = this.deps;
    // The time is read at each attempt: a retried update records when it was applied.
    const request = (current: KubeObject | undefined) => ({ ...command, current, kind: kind.kind, apiVersion, nowTime: formatRfc3339(this.deps.nowMs()) });
    const isApply = command.contentType === APPLY_PATCH;
    // Every patch type comes back with its managedFields set.
    const write: WriteContext = { ...context, recordManagedFields: false, serverSideApply: isApply };
    let warnings: string[] = [];
    const produce = async (current: KubeObject) => {
      const result = await this.deps.applyPatch(request(current));
      warnings = result.warnings;
      return result.object;
    };
    try {
      return { object: await this.update(command.name, command.subresource, produce, write), created: false, warnings };
    } catch (error) {
      if (!(isApply && command.subresource === '' && isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND'))) throw error;
    }
    const result = await this.deps.applyPatch(request(undefined));
    const { signal: _signal, ...createContext } = write;
    return { object: await this.create(result.object, createContext), created: true, warnings: result.warnings };
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
  async delete(name: string, options: DeleteOptions, requester: Requester): Promise<DeleteOutcome> {
    const current = await this.deps.store.get(name);
    this.checkPreconditions(current, options.preconditions);
    this.admit('DELETE', undefined, current, requester);
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
        return canonicalOrder({ ...next, metadata }, this.shape);
      };
      try {
        if (options.dryRun) return { type: 'pending', object: withResourceVersion(mark(current), current.metadata?.resourceVersion), accepted };
        const marked = await this.deps.store.guaranteedUpdate(name, mark, { preconditions: options.preconditions });
        return { type: 'pending', object: marked, accepted };
      } catch (error) {
        // The options took the last finalizer off: the object goes now.
        if (error !== DELETE_NOW) throw error;
      }
    }
    const deleted = options.dryRun ? current : await this.deps.store.delete(name, { preconditions: options.preconditions });
    return { type: 'deleted', status: this.deleteSuccess(name, deleted.metadata?.uid ?? ''), object: deleted };
  }

  /**
   * DELETE of the collection, as kube-apiserver's DeleteCollection: the listed objects (one page
   * when a limit is given, with its continue token and remaining count) each deleted as a single
   * DELETE would be; the answer is that list as it was listed.
   */
  async deleteCollection(listOptions: ListOptions, options: DeleteOptions, requester: Requester): Promise<ListResult> {
    const list = await this.deps.store.list(listOptions);
    for (const item of list.items) {
      try {
        await this.delete(item.metadata?.name ?? '', options, requester);
      } catch (error) {
        // Deleted by someone else meanwhile: that is what was asked for.
        if (!isStoreErrorCode(error, 'FW_ERR_STORE_NOT_FOUND')) throw error;
      }
    }
    return list;
  }

  private deleteSuccess(name: string, uid: string): Status {
    const details: Status['details'] = { name, group: this.deps.group, kind: this.deps.kind.resource };
    if (uid !== '') details.uid = uid;
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  }

  private prepareUpdate(given: KubeObject, current: KubeObject, subresource: Subresource, context: WriteContext): KubeObject {
    const { kind } = this.deps;
    const defaulted = kind.applyDefaults(this.typed(given));
    const old = this.typed(current);
    let next: T;
    let errors: FieldError[];
    if (subresource === 'status') {
      next = prepareForStatusUpdate(defaulted, old);
      errors = kind.validateStatusUpdate(next, old);
    } else {
      next = prepareForUpdate(kind, defaulted, old);
      errors = kind.validateUpdate(next, old);
    }
    this.validate(errors, current.metadata?.name ?? '');
    let stored = this.untyped(next);
    this.admit('UPDATE', stored, current, context.requester);
    if (context.recordManagedFields !== false) stored = this.deps.managedFields.recordUpdate(current, stored, context.manager, subresource);
    return this.finish(stored);
  }

  /**
   * The caller's object as the kind's type. Type meta is the registry's to set (`finish` sets it
   * again on the way out), so a body or patch that changed `kind` is stored as this kind all the same.
   */
  private typed(object: KubeObject): T {
    return asKind(this.deps.kind, object);
  }

  private untyped(object: T): KubeObject {
    return this.deps.kind.untyped(object);
  }

  private validate(errors: readonly FieldError[], name: string): void {
    if (errors.length > 0) throw new RegistryError({ code: 'FW_ERR_REGISTRY_INVALID', group: this.deps.group, kind: this.deps.kind.kind, name, errors });
  }

  /** Validating admission (when configured) on the object about to be stored; a refusal is thrown. */
  private admit(operation: AdmissionOperation, object: KubeObject | undefined, oldObject: KubeObject | undefined, requester: Requester): void {
    if (this.deps.admission !== undefined) admitWrite(this.deps.admission, requester, operation, this.admissionKind, object, oldObject);
  }

  /** Type meta set, resourceVersion left to the store, keys in canonical order. */
  private finish(object: KubeObject): KubeObject {
    const next: KubeObject = { ...object, kind: this.deps.kind.kind, apiVersion: this.deps.apiVersion };
    if (next.metadata !== undefined) {
      const { resourceVersion: _rv, ...metadata } = next.metadata;
      next.metadata = metadata;
    }
    return canonicalOrder(next, this.shape);
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

  private checkPreconditions(current: KubeObject, preconditions: Preconditions | undefined): void {
    if (preconditions === undefined) return;
    const meta = current.metadata ?? {};
    const key = `${resourcePrefix(this.naming)}${meta.name ?? ''}`;
    if (preconditions.uid !== undefined && preconditions.uid !== (meta.uid ?? '')) {
      throw preconditionError(this.naming, meta.name ?? '', key, 'UID', preconditions.uid, meta.uid ?? '');
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== (meta.resourceVersion ?? '')) {
      throw preconditionError(this.naming, meta.name ?? '', key, 'ResourceVersion', preconditions.resourceVersion, meta.resourceVersion ?? '');
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
