// Decoding an `application/apply-patch+yaml` body as kube-apiserver does (sigs.k8s.io/yaml: YAML
// 1.1 scalars, duplicate keys allowed with the last one winning unless fieldValidation asks). JSON
// bodies, which kubectl sends, are YAML too.

import type { Status } from '../resources/types.ts';
import { badRequest, nestingTooDeep } from '../status/errors.ts';
import { MAX_NESTING_DEPTH } from '../nesting-depth.ts';
import { parseGoYaml } from '../go-yaml.ts';
import { goJsonTypeName } from './go-json.ts';
import type { JsonObject } from './typed-value.ts';
import { isRecord } from '../own-property.ts';

export { strictYamlError } from '../go-yaml.ts';

export type ApplyBodyResult = { config: JsonObject; duplicateKeys: string[] } | { status: Status };

export function decodeApplyBody(text: string): ApplyBodyResult {
  const parsed = parseGoYaml(text);
  if (!parsed.ok && parsed.bound === 'depth') return { status: nestingTooDeep(MAX_NESTING_DEPTH) };
  if (!parsed.ok) return { status: badRequest(`error decoding YAML: error converting YAML to JSON: ${parsed.error}`) };
  const value = parsed.value ?? {};
  if (!isRecord(value)) {
    return {
      status: badRequest(
        `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonTypeName(value)} into Go value of type ` +
          'map[string]interface {}',
      ),
    };
  }
  return { config: value, duplicateKeys: parsed.duplicateKeys };
}
