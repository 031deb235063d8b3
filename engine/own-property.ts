// Objects decoded from requests, stored values and configuration files are plain JSON objects whose
// keys the sender chose. To Kubernetes `__proto__`, `constructor`, `prototype` or `toString` are
// field names like any other, but plain JavaScript reads them from Object.prototype when the
// object lacks them (`target["__proto__"]` is Object.prototype itself, so a merge into it pollutes
// every object of the process), and assigning `__proto__` replaces the object's prototype instead
// of adding a field. Every read, write and membership test keyed by such a name goes through these
// helpers, which see own properties only. JSON.parse, YAML's toJS, structuredClone and object
// spread already create own properties; `Object.assign`, `obj[key] = v` and `key in obj` do not.

export type JsonRecord = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object's own value for `key`; undefined when it has no own property of that name. */
export function ownValue<T>(object: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Sets an own, enumerable property, even for a key like `__proto__` that assignment treats specially. */
export function setOwn<T>(object: Record<string, T>, key: string, value: NoInfer<T>): void {
  // Object.prototype's other members are writable data properties, so assigning them creates an
  // own property; only `__proto__` is an accessor. defineProperty is kept for that one key because
  // it turns objects into slow dictionaries (structuredClone and JSON on them cost several times more).
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}
