// `fairway config check FILE...`: decode, default and validate PriorityLevelConfiguration and
// FlowSchema manifests offline, exactly as the server would on create, and print one line per
// finding in a `FILE: ...` format editors and CI logs can jump to.

import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { API_DOMAIN_FLAG } from './serve-flags.ts';
import { formatFieldError, moreFieldErrors, omittedFieldErrors } from '../../engine/resources/field-errors.ts';
import { checkManifests, createManifestRegistry, documentLabel, formatManifestError, readManifestFile } from '../../engine/config/manifests.ts';
import { flowcontrolManifestKinds } from '../../engine/config/flowcontrol-kinds.ts';
import { authorizationManifestKinds } from '../../engine/auth/authorization-kind.ts';
import { admissionManifestKinds } from '../../engine/auth/admission/admission-kind.ts';
import { encryptionManifestKinds } from '../../engine/config/encryption-kind.ts';

const CONFIG_CHECK_FLAGS = {
  apiDomain: { ...API_DOMAIN_FLAG, description: 'API group domain: objects must have apiVersion flowcontrol.apiserver.DOMAIN/v1' },
};

export const CONFIG_CHECK_COMMAND: CommandSpec<typeof CONFIG_CHECK_FLAGS> = {
  path: 'fairway config check',
  usage: 'fairway config check [--api-domain DOMAIN] FILE...',
  description: `Checks PriorityLevelConfiguration and FlowSchema manifests without a server: each object is
decoded, defaulted and validated as kube-apiserver does on create. EncryptionConfiguration files
(apiserver.config.DOMAIN/v1) are checked as kube-apiserver checks --encryption-provider-config.
AuthorizationConfiguration and AdmissionConfiguration files are checked as the server loads them:
CEL expressions compiled, kubeconfig and plugin configuration files read, static policy
manifests checked.

Files are YAML (several documents separated by ---) or JSON (a file starting with '{'); a List
(kind: List, or e.g. kind: FlowSchemaList) is checked item by item.`,
  flags: CONFIG_CHECK_FLAGS,
  positionals: { name: 'FILE', min: 1, max: Infinity, missing: 'no files given' },
  epilogue: `Output (stdout), one line per object or problem, in file order:
  FILE: KIND/NAME: valid
  FILE: KIND/NAME: FIELD: ERROR           e.g. ...: spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive
  FILE: cannot read: REASON
  FILE:LINE:COLUMN: invalid YAML: MESSAGE  (or invalid JSON)
  FILE:LINE: document N: MESSAGE          (not an object, unknown kind; N counts from 1)
An object without a name is shown as KIND/(document N).

Exit status: 0 if every object is valid, 1 if any object is invalid or any file is unreadable,
unparsable, empty or holds an unknown kind, 2 for usage errors.`,
};

export const configCheckCommand: Command = {
  spec: CONFIG_CHECK_COMMAND,
  run: (args) => runConfigCheck(args, processOutput),
};

export async function runConfigCheck(args: string[], output: Output): Promise<number> {
  const parsed = parseCommandLine(CONFIG_CHECK_COMMAND, args, output);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { apiDomain } = parsed.values;
  const files = parsed.positionals;

  const registry = createManifestRegistry([
    ...flowcontrolManifestKinds(apiDomain),
    ...encryptionManifestKinds(apiDomain),
    ...authorizationManifestKinds(apiDomain),
    ...admissionManifestKinds(apiDomain),
  ]);
  let failed = false;
  const print = (line: string): void => output.stdout(`${line}\n`);
  // One file at a time keeps the output in argument order.
  for (const file of files) {
    const manifest = await readManifestFile(file);
    const { checked, errors } = checkManifests(manifest, registry);
    // Report in document order whatever stage the problem was found at.
    const lines: { order: [number, number]; text: string }[] = [];
    for (const error of [...manifest.errors, ...errors]) {
      lines.push({ order: [error.index ?? -1, error.item ?? -1], text: formatManifestError(error) });
    }
    for (const { document, kind, name, errors: fieldErrors } of checked) {
      const label = name !== '' ? name : `(${documentLabel(document).slice(0, -2)})`;
      const prefix = `${file}: ${kind.kind}/${label}`;
      const texts = fieldErrors.length === 0 ? [`${prefix}: valid`] : fieldErrors.map((e) => `${prefix}: ${formatFieldError(e)}`);
      // Validation keeps its first errors and counts the rest; the count is said, not dropped.
      const omitted = omittedFieldErrors(fieldErrors);
      if (omitted > 0) texts.push(`${prefix}: ${moreFieldErrors(omitted)}`);
      for (const text of texts) lines.push({ order: [document.index, document.item ?? -1], text });
    }
    lines.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
    for (const { text } of lines) print(text);
    if (manifest.errors.length > 0 || errors.length > 0 || checked.some((c) => c.errors.length > 0)) failed = true;
  }
  return failed ? 1 : 0;
}
