// Which resource a store serves: the key segment, the names in messages and what bookmark objects
// carry. A leaf the store's other types build on.

export interface ResourceInfo {
  /** API group; '' for the core group. */
  readonly group: string;
  /** Plural resource name: the key segment, and the name in error messages. */
  readonly resource: string;
  readonly kind: string;
  /** apiVersion written on bookmark objects (`flowcontrol.apiserver.k8s.io/v1`). */
  readonly apiVersion: string;
  /** Fields a bookmark object carries besides metadata, as Go's zero values print (`{spec: {}, status: {}}`). */
  readonly bookmarkFields?: Readonly<Record<string, unknown>>;
}
