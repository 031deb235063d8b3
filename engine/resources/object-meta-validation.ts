// ObjectMeta validation as k8s.io/apimachinery's `ValidateObjectMeta` / `ValidateObjectMetaUpdate`
// (plus the core finalizer-name rule) run it for both flowcontrol kinds: names are DNS-1123
// subdomains and the kinds are cluster-scoped. Errors are in apimachinery's order and wording.
//
// The update check is pure: kube-apiserver first copies generation, uid (when empty), the creation
// and deletion timestamps from the stored object (rest.BeforeUpdate), and fills an unconditional
// update's resourceVersion, so callers do that before calling here. The two checks that this
// preparation makes unreachable ("resourceVersion must be specified", "generation must not be
// decremented") are left out.

import type { ObjectMeta, OwnerReference } from './types.ts';
import type { FieldError } from './field-errors.ts';
import { FieldPath, addFieldError, addFieldErrors, forbidden, invalid, required, tooLong } from './field-errors.ts';
import type { NameValidator } from './name-validation.ts';
import { byteLength, isQualifiedName, isValidLabelValue, nameIsDnsLabel, nameIsDnsSubdomain } from './name-validation.ts';

export {
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDnsLabel,
  nameIsDnsSubdomain,
} from './name-validation.ts';
export type { NameValidator } from './name-validation.ts';

export interface ObjectMetaValidationOptions {
  /** Namespaced kinds need a namespace; cluster-scoped ones (the default, like both flowcontrol kinds) forbid it. */
  namespaced?: boolean;
  /** The kind's name rule; apimachinery's `NameIsDNSSubdomain` unless told otherwise. */
  nameValidator?: NameValidator;
}

/** apimachinery's `TotalAnnotationSizeLimitB`: keys plus values, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

export const FIELD_IMMUTABLE_MESSAGE = 'field is immutable';

const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';
const STANDARD_FINALIZERS = new Set(['kubernetes', FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS]);

export function validateObjectMeta(
  meta: ObjectMeta | undefined,
  path: FieldPath | string = 'metadata',
  options: ObjectMetaValidationOptions = {},
): FieldError[] {
  const at = toPath(path);
  const m = meta ?? {};
  const validateName = options.nameValidator ?? nameIsDnsSubdomain;
  const errors: FieldError[] = [];

  const generateName = text(m.generateName);
  if (generateName.length > 0) {
    for (const message of validateName(generateName, true)) addFieldError(errors, invalid(at.child('generateName'), generateName, message));
  }
  const name = text(m.name);
  if (name.length === 0) addFieldError(errors, required(at.child('name'), 'name or generateName is required'));
  else for (const message of validateName(name, false)) addFieldError(errors, invalid(at.child('name'), name, message));

  const namespace = text(m.namespace);
  if (options.namespaced === true) {
    if (namespace.length === 0) addFieldError(errors, required(at.child('namespace')));
    else for (const message of nameIsDnsLabel(namespace, false)) addFieldError(errors, invalid(at.child('namespace'), namespace, message));
  } else if (namespace.length > 0) {
    addFieldError(errors, forbidden(at.child('namespace'), 'not allowed on this type'));
  }

  if (typeof m.generation === 'number' && m.generation < 0) {
    addFieldError(errors, invalid(at.child('generation'), m.generation, 'must be greater than or equal to 0'));
  }
  addFieldErrors(errors, validateLabels(m.labels, at.child('labels')));
  addFieldErrors(errors, validateAnnotations(m.annotations, at.child('annotations')));
  addFieldErrors(errors, validateOwnerReferences(m.ownerReferences, at.child('ownerReferences')));
  addFieldErrors(errors, validateFinalizers(m.finalizers, at.child('finalizers')));
  return errors;
}

export function validateObjectMetaUpdate(meta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined, path: FieldPath | string = 'metadata'): FieldError[] {
  const at = toPath(path);
  const m = meta ?? {};
  const old = oldMeta ?? {};
  const errors: FieldError[] = [];

  if (present(old.deletionTimestamp)) {
    const before = new Set(list<string>(old.finalizers));
    const added = [...new Set(list<string>(m.finalizers).filter((f) => !before.has(f)))].sort();
    if (added.length > 0) {
      const shown = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
      addFieldError(errors, forbidden(at.child('finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers ${shown}`));
    }
  }

  const immutable = (field: string, now: unknown, before: unknown, same: (a: unknown, b: unknown) => boolean): void => {
    if (!same(now, before)) addFieldError(errors, invalid(at.child(field), now, FIELD_IMMUTABLE_MESSAGE));
  };
  immutable('name', text(m.name), text(old.name), Object.is);
  immutable('namespace', text(m.namespace), text(old.namespace), Object.is);
  immutable('uid', text(m.uid), text(old.uid), Object.is);
  immutable('creationTimestamp', m.creationTimestamp, old.creationTimestamp, sameTime);
  immutable('deletionTimestamp', m.deletionTimestamp, old.deletionTimestamp, sameTime);
  immutable('deletionGracePeriodSeconds', nullable(m.deletionGracePeriodSeconds), nullable(old.deletionGracePeriodSeconds), Object.is);

  addFieldErrors(errors, validateLabels(m.labels, at.child('labels')));
  addFieldErrors(errors, validateAnnotations(m.annotations, at.child('annotations')));
  addFieldErrors(errors, validateOwnerReferences(m.ownerReferences, at.child('ownerReferences')));
  return errors;
}

export function validateLabels(labels: Record<string, string> | undefined, path: FieldPath | string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, raw] of entries(labels)) {
    for (const message of isQualifiedName(key)) addFieldError(errors, invalid(path, key, message));
    const value = text(raw);
    for (const message of isValidLabelValue(value)) addFieldError(errors, invalid(path, value, message));
  }
  return errors;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, path: FieldPath | string): FieldError[] {
  const errors: FieldError[] = [];
  let totalBytes = 0;
  for (const [key, value] of entries(annotations)) {
    // Annotation keys are qualified names compared without regard to case.
    for (const message of isQualifiedName(key.toLowerCase())) addFieldError(errors, invalid(path, key, message));
    totalBytes += byteLength(key) + byteLength(text(value));
  }
  if (totalBytes > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) addFieldError(errors, tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errors;
}

function validateOwnerReferences(references: OwnerReference[] | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let firstController = '';
  for (const reference of list<OwnerReference>(references)) {
    const ref: Partial<OwnerReference> = reference ?? {};
    const { group, version } = parseApiVersion(text(ref.apiVersion));
    const kind = text(ref.kind);
    if (version.length === 0) addFieldError(errors, invalid(path.child('apiVersion'), text(ref.apiVersion), 'version must not be empty'));
    if (kind.length === 0) addFieldError(errors, invalid(path.child('kind'), kind, 'must not be empty'));
    if (text(ref.name).length === 0) addFieldError(errors, invalid(path.child('name'), text(ref.name), 'must not be empty'));
    if (text(ref.uid).length === 0) addFieldError(errors, invalid(path.child('uid'), text(ref.uid), 'must not be empty'));
    if (group === '' && version === 'v1' && kind === 'Event') {
      addFieldError(errors, invalid(path, ref, `${group}/${version}, Kind=${kind} is disallowed from being an owner`));
    }
    if (ref.controller === true) {
      const current = `${kind}/${text(ref.name)}`;
      if (firstController === '') firstController = current;
      else {
        addFieldError(
          errors,
          invalid(path, references, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      }
    }
  }
  return errors;
}

function validateFinalizers(finalizers: string[] | undefined, path: FieldPath): FieldError[] {
  const names = list<string>(finalizers).map(text);
  const errors: FieldError[] = [];
  for (const name of names) for (const message of isQualifiedName(name)) addFieldError(errors, invalid(path, name, message));
  if (names.includes(FINALIZER_ORPHAN_DEPENDENTS) && names.includes(FINALIZER_DELETE_DEPENDENTS)) {
    addFieldError(errors, invalid(path, names, `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`));
  }
  // kube-apiserver's core rule on top: a finalizer without a domain must be one of the standard ones.
  names.forEach((name, i) => {
    const at = path.index(i);
    const generic = isQualifiedName(name);
    for (const message of generic) addFieldError(errors, invalid(at, name, message));
    if (generic.length === 0 && !name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
      addFieldError(errors, invalid(at, name, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errors;
}

/** schema.ParseGroupVersion as FromAPIVersionAndKind uses it: an unparsable value has no version. */
function parseApiVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

/** metav1.Time compares as an instant; a missing time is the zero time. */
function sameTime(a: unknown, b: unknown): boolean {
  const x = nullable(a);
  const y = nullable(b);
  if (x === null || y === null) return x === y;
  if (x === y) return true;
  const tx = typeof x === 'string' ? Date.parse(x) : Number.NaN;
  const ty = typeof y === 'string' ? Date.parse(y) : Number.NaN;
  return !Number.isNaN(tx) && tx === ty;
}

function toPath(path: FieldPath | string): FieldPath {
  return typeof path === 'string' ? FieldPath.root(path) : path;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

function nullable(value: unknown): unknown {
  return value === undefined || value === '' ? null : value;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

function entries(map: unknown): [string, unknown][] {
  return map !== null && typeof map === 'object' && !Array.isArray(map) ? Object.entries(map) : [];
}
