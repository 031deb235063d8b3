// The flooding clients of api/commands/testing/overload.ts in a process of their own. Argument: JSON
// `{endpoint, token, options}`. Prints FLOODING_LINE once the first request is answered, floods
// until its stdin closes, then prints the result as one line of JSON and exits.
import { encodeFloodResult, floodLoop, FLOODING_LINE, type FloodOptions } from './overload.ts';
import type { Endpoint } from '../../testing/load.ts';

const { endpoint, token, options } = JSON.parse(process.argv[2] ?? '{}') as { endpoint: Endpoint; token: string; options: FloodOptions };
const flood = floodLoop(endpoint, token, options, () => process.stdout.write(FLOODING_LINE));
process.stdin.resume();
process.stdin.on('end', () => {
  void flood.stop().then((result) => {
    process.stdout.write(`${encodeFloodResult(result)}\n`);
    process.exit(0);
  });
});
