// Watch responses are newline-delimited JSON arriving in arbitrary chunks; both test clients
// split them the same way.

/** Appends `chunk` to the pending text, pushes each complete JSON line, returns the remainder. */
export function takeJsonLines(pending: string, chunk: Buffer, events: unknown[]): string {
  let buffer = pending + chunk.toString('utf8');
  let newline: number;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim() !== '') events.push(JSON.parse(line));
  }
  return buffer;
}
