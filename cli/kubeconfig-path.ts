// Which kubeconfig a command reads when --kubeconfig is not given, as kubectl chooses it:
// $KUBECONFIG, else ~/.kube/config. $KUBECONFIG may list several files (':' on Unix); kubectl
// merges them, Fairway reads one: the first that exists (or the first listed, so that the error
// names a file the user wrote).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export const KUBECONFIG_DEFAULT_TEXT = '$KUBECONFIG, else ~/.kube/config';

export interface KubeconfigEnvironment {
  kubeconfigVariable?: string | undefined;
  home: string;
  exists?: (path: string) => boolean;
}

/** The kubeconfig file to read: the flag's value when given, else kubectl's default. */
export function kubeconfigPath(flagValue: string, environment: KubeconfigEnvironment = processEnvironment()): string {
  if (flagValue !== '') return flagValue;
  const listed = (environment.kubeconfigVariable ?? '').split(delimiter).filter((path) => path !== '');
  const exists = environment.exists ?? existsSync;
  if (listed.length > 0) return listed.find(exists) ?? listed[0]!;
  return join(environment.home, '.kube', 'config');
}

function processEnvironment(): KubeconfigEnvironment {
  return { kubeconfigVariable: process.env.KUBECONFIG, home: homedir() };
}
