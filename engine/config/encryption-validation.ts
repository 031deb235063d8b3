// EncryptionConfiguration validation, rule for rule and word for word as kube-apiserver's
// (k8s.io/apiserver/pkg/apis/apiserver/validation, ValidateEncryptionConfiguration), so an operator
// sees the same `resources[0].providers[1].aescbc.keys[0].secret: Invalid value: "REDACTED": ...`
// line from Fairway as from Kubernetes. Runs on a decoded and defaulted configuration.
//
// Two deliberate renderings differ from Go's `%#v`: a provider element is shown as JSON with every
// secret replaced by "REDACTED" (Go prints pointer addresses; JSON would print the keys), and a
// timeout is shown quoted (`"0s"`), as the repository's FieldError renders strings.

import type { FieldError } from '../resources/field-errors.ts';
import { FieldPath, invalid, required } from '../resources/field-errors.ts';
import type { EncryptionConfiguration, EncryptionKey, KmsConfiguration, ProviderConfiguration } from './encryption-types.ts';
import { parseGroupResource, PROVIDER_KINDS } from './encryption-types.ts';
import { formatGoDuration } from '../go-duration.ts';
import { append } from '../append.ts';

/** Key lengths in bytes. aescbc takes any AES key in code, though its type comment says 32 only. */
export const KEY_SIZES = { aesgcm: [16, 24, 32], aescbc: [16, 24, 32], secretbox: [32] } as const;

/** Resources that exist in storage but have no REST API, so nothing could ever rewrite them. */
const NON_REST_RESOURCES = new Set(['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations']);

export interface EncryptionValidationOptions {
  /**
   * `--encryption-provider-config-automatic-reload`: KMS v1 names must then be unique too, since
   * reload tells providers apart by name.
   */
  reload?: boolean;
}

export function validateEncryptionConfiguration(config: EncryptionConfiguration | undefined, options: EncryptionValidationOptions = {}): FieldError[] {
  const root = FieldPath.root('resources');
  if (config === undefined) return [required(root, "EncryptionConfiguration can't be nil")];
  if (config.resources.length === 0) return [required(root, `at least one ${root} is required`)];

  const errors: FieldError[] = [];
  const kmsNames = new Set<string>();
  config.resources.forEach((entry, i) => {
    const resourcesPath = root.index(i).child('resources');
    const providersPath = root.index(i).child('providers');
    if (entry.resources.length === 0) errors.push(required(resourcesPath, `at least one ${resourcesPath} is required`));
    append(errors, validateResourceOverlap(entry.resources, resourcesPath));
    append(errors, validateResourceNames(entry.resources, resourcesPath));
    if (entry.providers.length === 0) errors.push(required(providersPath, `at least one ${providersPath} is required`));
    entry.providers.forEach((provider, j) => {
      const path = providersPath.index(j);
      append(errors, validateSingleProvider(provider, path));
      // As upstream: the first provider kind set decides which checks run, even when several are.
      if (provider.kms !== undefined) {
        append(errors, validateKms(provider.kms, path.child('kms'), kmsNames, options.reload === true));
        kmsNames.add(provider.kms.name);
      } else if (provider.aesgcm !== undefined) {
        append(errors, validateKeys(provider.aesgcm.keys, path.child('aesgcm').child('keys'), KEY_SIZES.aesgcm));
      } else if (provider.aescbc !== undefined) {
        append(errors, validateKeys(provider.aescbc.keys, path.child('aescbc').child('keys'), KEY_SIZES.aescbc));
      } else if (provider.secretbox !== undefined) {
        append(errors, validateKeys(provider.secretbox.keys, path.child('secretbox').child('keys'), KEY_SIZES.secretbox));
      }
    });
  });
  return errors;
}

/**
 * Within one list: the same string twice, or two rules where one masks the other (`*.*` with
 * anything; `*.g` with anything else in group g). Each problem is reported once per list.
 */
function validateResourceOverlap(resources: readonly string[], path: FieldPath): FieldError[] {
  if (resources.length < 2) return [];
  const parsed = resources.map(parseGroupResource);
  let duplicate = false;
  let overlap = false;
  parsed.forEach((a, i) => {
    parsed.forEach((b, j) => {
      if (i === j) return;
      const same = a.group === b.group && a.resource === b.resource;
      if (same && !duplicate) {
        duplicate = true;
        return;
      }
      if (overlap) return;
      if (a.group === '*' && a.resource === '*') overlap = true;
      else if (a.group === b.group && (a.resource === '*' || b.resource === '*')) overlap = true;
    });
  });
  const errors: FieldError[] = [];
  if (duplicate) errors.push(invalid(path, [...resources], 'the same resource cannot be specified multiple times'));
  if (overlap)
    errors.push(
      invalid(path, [...resources], "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"),
    );
  return errors;
}

function validateResourceNames(resources: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  resources.forEach((text, j) => {
    const at = path.index(j);
    const reject = (detail: string): void => void errors.push(invalid(at, text, detail));
    if (text.toLowerCase() !== text) return reject('resource name should not contain capital letters');
    if (text === '*') return reject("use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources");
    if (NON_REST_RESOURCES.has(text)) return reject('resources which do not have REST API/s cannot be encrypted');
    const { group, resource } = parseGroupResource(text);
    if (group === 'events.k8s.io') {
      return reject("'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file");
    }
    if (group === 'extensions') return reject("'extensions' group has been removed and cannot be used for encryption");
    if (group === '*' && resource !== '*') return reject('encrypting the same resource across groups is not supported');
  });
  return errors;
}

function validateSingleProvider(provider: ProviderConfiguration, path: FieldPath): FieldError[] {
  const found = PROVIDER_KINDS.filter((kind) => provider[kind] !== undefined).length;
  if (found === 0)
    return [invalid(path, redactProvider(provider), 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity')];
  if (found > 1)
    return [invalid(path, redactProvider(provider), 'more than one provider specified in a single element, should split into different list elements')];
  return [];
}

function validateKeys(keys: readonly EncryptionKey[], path: FieldPath, sizes: readonly number[]): FieldError[] {
  if (keys.length === 0) return [required(path, 'at least one keys is required')];
  const errors: FieldError[] = [];
  keys.forEach((key, k) => {
    const at = path.index(k);
    if (key.name === '') errors.push(required(at.child('name'), 'name is a mandatory field for a key'));
    if (key.secret === '') {
      errors.push(required(at.child('secret'), 'secret is a mandatory field for a key'));
      return;
    }
    const secret = decodeStdBase64(key.secret);
    if (secret === undefined) {
      errors.push(invalid(at.child('secret'), 'REDACTED', 'secrets must be base64 encoded'));
      return;
    }
    if (!sizes.includes(secret.length)) {
      errors.push(invalid(at.child('secret'), 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`));
    }
  });
  return errors;
}

function validateKms(kms: KmsConfiguration, path: FieldPath, seenNames: ReadonlySet<string>, reload: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const namePath = path.child('name');
  if (kms.name === '') errors.push(required(namePath, 'name is a mandatory field for a provider'));
  if (kms.apiVersion !== 'v1' && kms.name.includes(':'))
    errors.push(invalid(namePath, kms.name, `invalid KMS provider name ${kms.name}, must not contain ':'`));
  if ((reload || kms.apiVersion !== 'v1') && seenNames.has(kms.name)) {
    errors.push(invalid(namePath, kms.name, `duplicate KMS provider name ${kms.name}, names must be unique`));
  }
  if (kms.timeoutNanoseconds <= 0n) errors.push(invalid(path.child('timeout'), formatGoDuration(kms.timeoutNanoseconds), 'timeout should be a positive value'));
  append(errors, validateKmsEndpoint(kms.endpoint, path.child('endpoint')));
  const cachePath = path.child('cachesize');
  if (kms.apiVersion !== 'v1' && kms.cachesize !== undefined) errors.push(invalid(cachePath, kms.cachesize, 'cachesize is not supported in v2'));
  if (kms.apiVersion === 'v1' && kms.cachesize === 0) errors.push(invalid(cachePath, 0, 'cachesize should be a positive value, or negative to disable'));
  if (kms.apiVersion !== 'v1' && kms.apiVersion !== 'v2') {
    // Upstream formats the literal word "apiVersion" into the message, not the value.
    errors.push(invalid(path.child('apiVersion'), kms.apiVersion, 'unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported'));
  }
  return errors;
}

function validateKmsEndpoint(endpoint: string, path: FieldPath): FieldError[] {
  if (endpoint === '') return [invalid(path, '', 'endpoint is a mandatory field for a kms')];
  const parsed = parseEndpointUrl(endpoint);
  if ('error' in parsed) return [invalid(path, endpoint, `invalid endpoint for kms provider, error: ${parsed.error}`)];
  if (parsed.scheme !== 'unix')
    return [invalid(path, endpoint, `unsupported scheme ${JSON.stringify(parsed.scheme)} for KMS provider, only unix is supported`)];
  return [];
}

/**
 * The parts of Go's `url.Parse` an endpoint check needs: the lower-cased scheme, the host and
 * the unescaped path, or the error Go reports for the malformed inputs a config file can hold.
 */
export function parseEndpointUrl(text: string): { scheme: string; host: string; path: string } | { error: string } {
  const fail = (why: string): { error: string } => ({ error: `parse ${JSON.stringify(text)}: ${why}` });
  if (/[\x00-\x1f\x7f]/.test(text)) return fail('net/url: invalid control character in URL');
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text);
  if (text.startsWith(':')) return fail('missing protocol scheme');
  const scheme = schemeMatch === null ? '' : schemeMatch[1]!.toLowerCase();
  let rest = schemeMatch === null ? text : text.slice(schemeMatch[0].length);
  rest = rest.split('#')[0]!.split('?')[0]!;
  let host = '';
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    host = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
  } else if (scheme !== '' && !rest.startsWith('/')) {
    // `unix:relative` is an opaque URL: no path at all.
    rest = '';
  } else if (scheme === '' && /^[^/]*:/.test(rest)) {
    return fail('first path segment in URL cannot contain colon');
  }
  // Go checks every escape first (reporting up to three characters of a bad one), then decodes bytes.
  const badEscape = /%(?![0-9A-Fa-f]{2})/.exec(rest);
  if (badEscape !== null) return fail(`invalid URL escape ${JSON.stringify(rest.slice(badEscape.index, badEscape.index + 3))}`);
  const path = Buffer.from(
    rest.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
  return { scheme, host, path };
}

/**
 * Go's `base64.StdEncoding.DecodeString`: padding required, `+/` alphabet, CR and LF ignored.
 * Node's decoder accepts far more (URL-safe letters, missing padding, junk), hence this check.
 */
export function decodeStdBase64(text: string): Uint8Array | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) return undefined;
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/** A provider element for an error message: its shape, never its secrets. */
function redactProvider(provider: ProviderConfiguration): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kind of PROVIDER_KINDS) {
    const value = provider[kind];
    if (value === undefined) continue;
    if (kind === 'aesgcm' || kind === 'aescbc' || kind === 'secretbox') {
      const keys = (value as { keys: EncryptionKey[] }).keys;
      out[kind] = { keys: keys.map((key) => ({ name: key.name, secret: 'REDACTED' })) };
    } else if (kind === 'kms') {
      const kms = value as KmsConfiguration;
      out[kind] = { apiVersion: kms.apiVersion, name: kms.name, endpoint: kms.endpoint };
    } else {
      out[kind] = {};
    }
  }
  return out;
}
