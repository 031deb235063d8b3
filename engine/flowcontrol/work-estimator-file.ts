// `--apf-work-estimator-config-file`: the work estimator's tunables (Kubernetes' WorkEstimatorConfig
// in its JSON form, engine/flowcontrol/work-estimator-config.ts) from a YAML or JSON file. Every
// problem is one line naming the file and, for a bad value, the field.

import { formatFieldErrors } from '../resources/field-errors.ts';
import { decodeWorkEstimatorConfig, type WorkEstimatorConfig } from './work-estimator-config.ts';
import { formatManifestError, readManifestFile } from '../config/manifests.ts';

export type WorkEstimatorFileResult = { ok: true; config: WorkEstimatorConfig } | { ok: false; error: string };

export async function loadWorkEstimatorConfig(file: string): Promise<WorkEstimatorFileResult> {
  const manifest = await readManifestFile(file);
  const first = manifest.documents[0];
  const problem = manifest.errors[0];
  if (problem !== undefined) return { ok: false, error: formatManifestError(problem) };
  if (first === undefined || manifest.documents.length > 1) return { ok: false, error: `${file}: must hold exactly one WorkEstimatorConfig object` };
  const { config, errors } = decodeWorkEstimatorConfig(first.object);
  if (errors.length > 0) return { ok: false, error: `${file}: ${formatFieldErrors(errors)}` };
  return { ok: true, config };
}
