// Access control for a test's server: these tokens authenticate, everyone is allowed, no admission.
import { realClock } from '../../../engine/clock.ts';
import type { UserInfo } from '../../../engine/auth/user-info.ts';
import { isHealthPath } from '../../handlers/health.ts';
import { silentLogger } from '../../log.ts';
import { createAccessControl, type AccessControl } from '../access-control.ts';

export async function testAccessControl(tokens: ReadonlyMap<string, UserInfo>): Promise<AccessControl> {
  const built = await createAccessControl({ authentication: { tokens }, clock: realClock(), logger: silentLogger, isPublicPath: isHealthPath });
  if (!built.ok) throw new Error(built.error);
  return built.value;
}
