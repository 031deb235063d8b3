// The checksum the crash test's writer puts in every object, so the checker can tell a torn or
// mixed-up value from an intact one.
import { createHash } from 'node:crypto';

export function payloadSum(payload: string): string {
  return createHash('sha256').update(payload).digest('hex').slice(0, 16);
}
