// Impersonation as kube-apiserver's filter does it: `Impersonate-User` (a user, or a service
// account when it reads `system:serviceaccount:<namespace>:<name>`), `Impersonate-Group` (any
// number), `Impersonate-Uid` and `Impersonate-Extra-<key>` (any number, the key percent-encoded)
// each become one thing to impersonate. The requestor must be allowed the verb `impersonate` on
// every one of them, asked of the configured authorizers:
//
//   users / serviceaccounts (in the namespace) / groups   in API group ""
//   uids, userextras/<key>                                  in API group authentication.k8s.io
//
// The first refusal ends it (403). If all are allowed, the request goes on as the impersonated
// user: the named user, the groups given (a service account's own groups when none are), the
// extras and uid given, and `system:authenticated` (or, for system:anonymous,
// `system:unauthenticated`) unless the groups given already settle it.
import type { UserInfo } from './user-info.ts';
import type { AuthorizationAttributes, Authorizer, Cancellation } from './authorizer.ts';
import { SYSTEM_ANONYMOUS, SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED } from './authenticator.ts';

export const IMPERSONATE_USER_HEADER = 'impersonate-user';
export const IMPERSONATE_GROUP_HEADER = 'impersonate-group';
export const IMPERSONATE_UID_HEADER = 'impersonate-uid';
export const IMPERSONATE_EXTRA_HEADER_PREFIX = 'impersonate-extra-';
/** Every impersonation header starts so (lower-case, as Node hands header names over). */
export const IMPERSONATE_HEADER_PREFIX = 'impersonate-';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

export type ImpersonationTarget =
  | { kind: 'User'; name: string }
  | { kind: 'ServiceAccount'; namespace: string; name: string }
  | { kind: 'Group'; name: string }
  | { kind: 'UserExtra'; key: string; value: string }
  | { kind: 'UID'; uid: string };

/** A header as received: lower-case name, one value per header line (Go does not split on commas). */
export type HeaderLine = readonly [name: string, value: string];

/**
 * What the headers ask to impersonate, in Kubernetes' order (user, groups, extras, uid); an empty
 * list when they ask nothing. Groups, extras or a uid without a user are refused with Kubernetes'
 * message.
 */
export function impersonationTargets(
  headers: readonly HeaderLine[],
  apiDomain = 'k8s.io',
): { ok: true; targets: ImpersonationTarget[] } | { ok: false; error: string } {
  const targets: ImpersonationTarget[] = [];
  const first = (name: string) => headers.find(([n]) => n === name)?.[1] ?? '';
  const user = first(IMPERSONATE_USER_HEADER);
  if (user !== '') {
    const account = splitServiceAccountUsername(user);
    targets.push(account === undefined ? { kind: 'User', name: user } : { kind: 'ServiceAccount', ...account });
  }
  for (const [name, value] of headers) if (name === IMPERSONATE_GROUP_HEADER) targets.push({ kind: 'Group', name: value });
  for (const [name, value] of headers) {
    if (name.startsWith(IMPERSONATE_EXTRA_HEADER_PREFIX))
      targets.push({ kind: 'UserExtra', key: unescapeExtraKey(name.slice(IMPERSONATE_EXTRA_HEADER_PREFIX.length)), value });
  }
  const uid = first(IMPERSONATE_UID_HEADER);
  if (uid !== '') targets.push({ kind: 'UID', uid });
  if (user === '' && targets.length > 0) {
    return { ok: false, error: `requested [${targets.map((t) => goObjectReference(t, apiDomain)).join(' ')}] without impersonating a user` };
  }
  return { ok: true, targets };
}

/** The `impersonate` request the requestor must be allowed for one target. */
export function impersonationAttributes(requestor: UserInfo, target: ImpersonationTarget, apiDomain = 'k8s.io'): AuthorizationAttributes {
  const base = { user: requestor, verb: 'impersonate', isResourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: '', subresource: '' };
  const authentication = `authentication.${apiDomain}`;
  switch (target.kind) {
    case 'User':
      return { ...base, resource: 'users', name: target.name };
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts', namespace: target.namespace, name: target.name };
    case 'Group':
      return { ...base, resource: 'groups', name: target.name };
    case 'UserExtra':
      return { ...base, apiGroup: authentication, apiVersion: 'v1', resource: 'userextras', subresource: target.key, name: target.value };
    case 'UID':
      return { ...base, apiGroup: authentication, apiVersion: 'v1', resource: 'uids', name: target.uid };
  }
}

/** The user the request continues as once every target is allowed. */
export function impersonatedUser(targets: readonly ImpersonationTarget[]): UserInfo {
  const groupsGiven = targets.some((t) => t.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const target of targets) {
    switch (target.kind) {
      case 'User':
        name = target.name;
        break;
      case 'ServiceAccount':
        name = `${SERVICE_ACCOUNT_PREFIX}${target.namespace}:${target.name}`;
        if (!groupsGiven) groups = [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${target.namespace}`];
        break;
      case 'Group':
        groups.push(target.name);
        break;
      case 'UserExtra':
        (extra[target.key] ??= []).push(target.value);
        break;
      case 'UID':
        uid = target.uid;
        break;
    }
  }
  if (name !== SYSTEM_ANONYMOUS) {
    if (!groups.some((g) => g === SYSTEM_AUTHENTICATED || g === SYSTEM_UNAUTHENTICATED)) groups.push(SYSTEM_AUTHENTICATED);
  } else if (!groups.includes(SYSTEM_UNAUTHENTICATED)) {
    groups.push(SYSTEM_UNAUTHENTICATED);
  }
  const user: UserInfo = { name, groups, extra };
  if (uid !== '') user.uid = uid;
  return user;
}

export type ImpersonationOutcome =
  | { kind: 'none' }
  | { kind: 'impersonating'; user: UserInfo }
  | { kind: 'invalid'; error: string }
  /** `attributes` is what was refused; `reason` the authorizer's (the 403 names both). */
  | { kind: 'forbidden'; attributes: AuthorizationAttributes; reason: string };

/** Asks the authorizer about each target in order; the first refusal (or error) forbids. */
export async function impersonate(
  requestor: UserInfo,
  headers: readonly HeaderLine[],
  authorizer: Authorizer,
  options: { apiDomain?: string | undefined; cancellation?: Cancellation } = {},
): Promise<ImpersonationOutcome> {
  const parsed = impersonationTargets(headers, options.apiDomain);
  if (!parsed.ok) return { kind: 'invalid', error: parsed.error };
  if (parsed.targets.length === 0) return { kind: 'none' };
  for (const target of parsed.targets) {
    const attributes = impersonationAttributes(requestor, target, options.apiDomain);
    const result = await authorizer.authorize(attributes, options.cancellation);
    if (result.decision !== 'allow' || (result.error !== undefined && result.error !== '')) return { kind: 'forbidden', attributes, reason: result.reason };
  }
  return { kind: 'impersonating', user: impersonatedUser(parsed.targets) };
}

/** `name[group,group]`, how Kubernetes names both users in its "is impersonating" log text. */
export function describeUser(user: UserInfo): string {
  const name = user.name === '' ? '<empty>' : user.name;
  return user.groups.length > 0 ? `${name}[${user.groups.join(',')}]` : name;
}

/** `system:serviceaccount:<namespace>:<name>` with a valid namespace and name, else undefined. */
function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (!isDns1123Label(namespace) || !isDns1123Subdomain(name)) return undefined;
  return { namespace, name };
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const isDns1123Label = (value: string) => value.length <= 63 && DNS1123_LABEL.test(value);
const isDns1123Subdomain = (value: string) => value.length <= 253 && value.split('.').every((part) => DNS1123_LABEL.test(part));

/** Go's url.PathUnescape; a key that does not decode is kept as sent. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** A target as Go's `%v` prints the v1.ObjectReference Kubernetes builds for it. */
function goObjectReference(target: ImpersonationTarget, apiDomain: string): string {
  const authentication = `authentication.${apiDomain}/v1`;
  const fields = (kind: string, namespace: string, name: string, apiVersion: string, fieldPath: string) =>
    `{${[kind, namespace, name, '', apiVersion, '', fieldPath].join(' ')}}`;
  switch (target.kind) {
    case 'User':
      return fields('User', '', target.name, '', '');
    case 'ServiceAccount':
      return fields('ServiceAccount', target.namespace, target.name, '', '');
    case 'Group':
      return fields('Group', '', target.name, '', '');
    case 'UserExtra':
      return fields('UserExtra', '', target.value, authentication, target.key);
    case 'UID':
      return fields('UID', '', target.uid, authentication, '');
  }
}
