// A loaded scenario's warnings, as every command that runs scenarios prints them.

/**
 * Prints the load warnings; with `--strict` they are errors and the command stops (exit 1) before
 * anything is simulated. Returns true when the command must stop.
 */
export function reportWarnings(warnings: readonly string[], strict: boolean, command: string, output: { stderr(text: string): void }): boolean {
  const unique = [...new Set(warnings)];
  for (const warning of unique) output.stderr(`${strict ? 'error' : 'warning'}: ${warning}\n`);
  if (strict && unique.length > 0) {
    output.stderr(`fairway ${command}: ${unique.length} warning${unique.length === 1 ? '' : 's'} with --strict; nothing was simulated\n`);
    return true;
  }
  return false;
}
