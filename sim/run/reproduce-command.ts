// The command line that runs one run again: each report, alone or in a sweep or comparison, shows it.

/** The `fairway sim run` command line that reproduces one run (shown in its report.html). */
export function reproduceCommand(run: {
  scenarioFile: string;
  seed: string;
  variantFiles?: readonly string[];
  auditLogFile?: string | undefined;
  auditGrouping?: string | undefined;
}): string {
  return [
    'fairway sim run',
    run.scenarioFile,
    '--seed',
    run.seed,
    ...(run.variantFiles ?? []).flatMap((v) => ['--variant', v]),
    ...(run.auditLogFile === undefined ? [] : ['--audit-log', run.auditLogFile]),
    ...(run.auditGrouping === undefined ? [] : ['--group-by', run.auditGrouping]),
  ].join(' ');
}
