// The representations an API object is written in, and the writing itself, as apimachinery's
// serializers write them. No HTTP here: which representation a request gets is the API layer's
// negotiation (api/request/content-negotiation.ts).
import { stringify as yamlStringify } from 'yaml';
import { goJsonText } from '../store/go-json.ts';
import { encodeObject, PROTOBUF_MEDIA_TYPE } from '../protobuf/objects.ts';

export { PROTOBUF_MEDIA_TYPE };

export type SerializerMediaType = 'application/json' | 'application/yaml' | typeof PROTOBUF_MEDIA_TYPE;

export interface Representation {
  mediaType: SerializerMediaType;
  pretty: boolean;
}

/**
 * The body of `value` as apimachinery's serializers write it: compact JSON ends with a newline
 * (json.Encoder), indented JSON does not (json.MarshalIndent); both escape HTML characters, as Go's
 * encoder does; YAML keys are sorted, as sigs.k8s.io/yaml sorts them; protobuf is an API object's
 * message in its envelope. No YAML anchors: Go writes a shared object out in full, and an alias
 * placed before its anchor by the key sort does not even stringify (GET /apis as YAML was a 500).
 */
export function encode(value: unknown, representation: Representation): string | Buffer {
  if (representation.mediaType === PROTOBUF_MEDIA_TYPE) return encodeObject(value);
  if (representation.mediaType === 'application/yaml') return yamlStringify(value, { sortMapEntries: true, lineWidth: 0, aliasDuplicateObjects: false });
  return representation.pretty ? goJsonText(value, true) : `${goJsonText(value)}\n`;
}
