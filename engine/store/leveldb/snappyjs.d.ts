// snappyjs ships no types; only what leveldb-files.ts uses.
declare module 'snappyjs' {
  function uncompress<T extends Uint8Array | ArrayBuffer>(compressed: T, maxLength?: number): T;
  function compress<T extends Uint8Array | ArrayBuffer>(uncompressed: T): T;
  const snappy: { uncompress: typeof uncompress; compress: typeof compress };
  export default snappy;
}
