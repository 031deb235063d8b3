// The KMS v2 stored envelope, protobuf message `v2.EncryptedObject` (what follows
// `k8s:enc:kms:v2:<name>:`), encoded and decoded by hand — five fields do not need a protobuf
// runtime, and a hand decoder can refuse malformed input with a precise reason:
//   1 encryptedData bytes, 2 keyID string, 3 encryptedDEKSource bytes,
//   4 annotations map<string, bytes>, 5 encryptedDEKSourceType enum (proto3: 0 is not written).
// Both directions check the object as kube-apiserver does (sizes, known source type).

export const DEK_SOURCE_AES_GCM_KEY = 0;
export const DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED = 1;

export const KEY_ID_MAX_BYTES = 1024;
export const ENCRYPTED_DEK_SOURCE_MAX_BYTES = 1024;
export const ANNOTATIONS_MAX_BYTES = 32 * 1024;

export interface EncryptedObject {
  encryptedData: Uint8Array;
  keyId: string;
  encryptedDekSource: Uint8Array;
  /** Plugin-defined; keys are fully qualified domain names. */
  annotations: ReadonlyMap<string, Uint8Array>;
  encryptedDekSourceType: number;
}

/** Returns the problem, worded as kube-apiserver's, or undefined when the object is usable. */
export function validateEncryptedObject(o: EncryptedObject): string | undefined {
  if (o.encryptedDekSourceType !== DEK_SOURCE_AES_GCM_KEY && o.encryptedDekSourceType !== DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED) {
    return `unknown encryptedDEKSourceType: ${o.encryptedDekSourceType}`;
  }
  if (o.encryptedData.length === 0) return 'encrypted data is empty';
  if (o.encryptedDekSource.length === 0) return 'failed to validate encrypted DEK source: encrypted DEK source is empty';
  if (o.encryptedDekSource.length > ENCRYPTED_DEK_SOURCE_MAX_BYTES) {
    return (
      `failed to validate encrypted DEK source: encrypted DEK source is ${o.encryptedDekSource.length} bytes, which exceeds the max size of ` +
      `${ENCRYPTED_DEK_SOURCE_MAX_BYTES}`
    );
  }
  const keyIdProblem = validateKeyId(o.keyId);
  if (keyIdProblem !== undefined) return `failed to validate key id: ${keyIdProblem}`;
  const annotationProblem = validateAnnotations(o.annotations);
  if (annotationProblem !== undefined) return `failed to validate annotations: ${annotationProblem}`;
  return undefined;
}

export function validateKeyId(keyId: string): string | undefined {
  if (keyId.length === 0) return 'keyID is empty';
  const bytes = utf8Length(keyId);
  if (bytes > KEY_ID_MAX_BYTES) return `keyID is ${bytes} bytes, which exceeds the max size of ${KEY_ID_MAX_BYTES}`;
  return undefined;
}

function validateAnnotations(annotations: ReadonlyMap<string, Uint8Array>): string | undefined {
  const problems: string[] = [];
  let total = 0;
  for (const [key, value] of annotations) {
    if (!isFullyQualifiedDomainName(key))
      problems.push(`annotations: Invalid value: ${JSON.stringify(key)}: should be a domain with at least two segments separated by dots`);
    total += utf8Length(key) + value.length;
  }
  if (total > ANNOTATIONS_MAX_BYTES) problems.push(`total size of annotations is ${total}, which exceeds the max size of ${ANNOTATIONS_MAX_BYTES}`);
  if (problems.length === 0) return undefined;
  return problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`;
}

/** At least two DNS-1123 labels, 253 characters at most. */
function isFullyQualifiedDomainName(name: string): boolean {
  if (name.length > 253) return false;
  const labels = name.split('.');
  return labels.length >= 2 && labels.every((label) => /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(label));
}

// ---------------------------------------------------------------------------------------------
// Wire format

export function encodeEncryptedObject(o: EncryptedObject): Uint8Array {
  const problem = validateEncryptedObject(o);
  if (problem !== undefined) throw new Error(problem);
  const out: number[] = [];
  writeBytesField(out, 1, o.encryptedData);
  writeBytesField(out, 2, new TextEncoder().encode(o.keyId));
  writeBytesField(out, 3, o.encryptedDekSource);
  // Sorted keys make the encoding deterministic (Go's map order is not, and readers do not care).
  for (const key of [...o.annotations.keys()].sort()) {
    const entry: number[] = [];
    writeBytesField(entry, 1, new TextEncoder().encode(key));
    writeBytesField(entry, 2, o.annotations.get(key)!);
    writeBytesField(out, 4, Uint8Array.from(entry));
  }
  if (o.encryptedDekSourceType !== 0) {
    writeVarint(out, (5 << 3) | 0);
    writeVarint(out, o.encryptedDekSourceType);
  }
  return Uint8Array.from(out);
}

/** Parses and validates; throws an Error whose message says what is wrong. */
export function decodeEncryptedObject(bytes: Uint8Array): EncryptedObject {
  const o: { encryptedData: Uint8Array; keyId: string; encryptedDekSource: Uint8Array; annotations: Map<string, Uint8Array>; encryptedDekSourceType: number } =
    {
      encryptedData: new Uint8Array(0),
      keyId: '',
      encryptedDekSource: new Uint8Array(0),
      annotations: new Map(),
      encryptedDekSourceType: 0,
    };
  const reader = new ProtoReader(bytes);
  while (!reader.done()) {
    const tag = reader.varint();
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (field === 1 && wireType === 2) o.encryptedData = reader.bytes();
    else if (field === 2 && wireType === 2) o.keyId = reader.utf8();
    else if (field === 3 && wireType === 2) o.encryptedDekSource = reader.bytes();
    else if (field === 4 && wireType === 2) {
      const entry = new ProtoReader(reader.bytes());
      let key = '';
      let value: Uint8Array = new Uint8Array(0);
      while (!entry.done()) {
        const entryTag = entry.varint();
        if (entryTag === 0x0a) key = entry.utf8();
        else if (entryTag === 0x12) value = entry.bytes();
        else entry.skip(entryTag % 8);
      }
      o.annotations.set(key, value);
    } else if (field === 5 && wireType === 0) o.encryptedDekSourceType = reader.varint();
    else if (field === 0) throw new Error('proto: invalid field number 0');
    else reader.skip(wireType);
  }
  const problem = validateEncryptedObject(o);
  if (problem !== undefined) throw new Error(problem);
  return o;
}

function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function writeBytesField(out: number[], field: number, bytes: Uint8Array): void {
  writeVarint(out, (field << 3) | 2);
  writeVarint(out, bytes.length);
  for (const b of bytes) out.push(b);
}

class ProtoReader {
  private offset = 0;
  constructor(private readonly data: Uint8Array) {}

  done(): boolean {
    return this.offset >= this.data.length;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.offset >= this.data.length) throw new Error('proto: unexpected end of data in varint');
      const byte = this.data[this.offset++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (!Number.isSafeInteger(result)) throw new Error('proto: varint too large');
        return result;
      }
      scale *= 0x80;
    }
    throw new Error('proto: varint overflow');
  }

  bytes(): Uint8Array {
    const length = this.varint();
    if (length > this.data.length - this.offset) throw new Error('proto: length-delimited field runs past the end of data');
    const out = this.data.slice(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  utf8(): string {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes());
    } catch (error) {
      if (error instanceof TypeError) throw new Error('proto: string field contains invalid UTF-8');
      throw error;
    }
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.advance(8);
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.advance(4);
    else throw new Error(`proto: cannot skip unknown wire type ${wireType}`);
  }

  private advance(count: number): void {
    if (count > this.data.length - this.offset) throw new Error('proto: unexpected end of data');
    this.offset += count;
  }
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
