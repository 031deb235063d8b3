// The bad-input corpus of the reliability tests: requests a client gets wrong, each with the answer
// kube-apiserver v1.32 gives (status, Status reason, the gist of the message). The test server
// holds a PriorityLevelConfiguration `good` and a FlowSchema `good-fs`; every write that could
// succeed carries dryRun=All, so the corpus never changes stored data.
//
// Three inputs look wrong but are not errors in Kubernetes, and are kept here with kube's answer:
// `limit=-1` (a non-positive limit means "no limit"), `watch=maybe` (any value but false/0 asks for
// a watch) and unknown fields under fieldValidation Warn/Ignore (accepted, dropped, warned about).

export const GROUP = 'flowcontrol.apiserver.k8s.io';
export const PLC = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
export const FS = `/apis/${GROUP}/v1/flowschemas`;

export interface BadInputCase {
  name: string;
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  /** The Status reason; undefined when the answer is not a Status (or a success). */
  reason?: string;
  /** Matched against the Status message (or, for a success, the body). */
  message: RegExp;
  /** A response header that must be present and match. */
  header?: [string, RegExp];
}

export const validPlc = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } },
  ...extra,
});

const json = (value: unknown) => JSON.stringify(value);
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const STRATEGIC = { 'Content-Type': 'application/strategic-merge-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const YAML = { 'Content-Type': 'application/yaml' };
const nested = (levels: number) => `${'{"a":'.repeat(levels)}{}${'}'.repeat(levels)}`;

export const BAD_INPUT_CORPUS: readonly BadInputCase[] = [
  // Malformed documents
  { name: 'truncated JSON', method: 'POST', path: PLC, body: '{"apiVersion": ', status: 400, reason: 'BadRequest', message: /^the object provided is unrecognized \(must be of type PriorityLevelConfiguration\): couldn't get version\/kind; json parse error: unexpected end of JSON input \(\{"apiVersion": \)$/ },
  { name: 'JSON with a stray byte', method: 'POST', path: PLC, body: Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), status: 400, reason: 'BadRequest', message: /json parse error: invalid character '.' looking for beginning of value \(fffe7b7d\)$/ },
  { name: 'JSON array instead of an object', method: 'POST', path: PLC, body: '[1,2]', status: 400, reason: 'BadRequest', message: /cannot unmarshal array/ },
  { name: 'JSON null', method: 'POST', path: PLC, body: 'null', status: 400, reason: 'BadRequest', message: /cannot unmarshal null/ },
  { name: 'empty body', method: 'POST', path: PLC, body: '', status: 400, reason: 'BadRequest', message: /json parse error: unexpected end of JSON input \(<empty>\)$/ },
  { name: 'malformed YAML', method: 'POST', path: PLC, body: 'a: [b', headers: YAML, status: 400, reason: 'BadRequest', message: /^the object provided is unrecognized \(must be of type PriorityLevelConfiguration\): error converting YAML to JSON: yaml: line 1: / },
  { name: 'YAML tab indentation', method: 'POST', path: PLC, body: 'metadata:\n\tname: x\n', headers: YAML, status: 400, reason: 'BadRequest', message: /^the object provided is unrecognized \(must be of type PriorityLevelConfiguration\): error converting YAML to JSON: yaml: / },
  // Wrong apiVersion / kind
  { name: 'wrong apiVersion', method: 'POST', path: `${PLC}?dryRun=All`, body: json({ ...validPlc('x'), apiVersion: 'v1' }), status: 400, reason: 'BadRequest', message: /^the API version in the data \(v1\) does not match the expected API version \(flowcontrol\.apiserver\.k8s\.io\/v1\)$/ },
  { name: 'wrong apiVersion in YAML', method: 'POST', path: `${PLC}?dryRun=All`, body: 'apiVersion: v1\nkind: PriorityLevelConfiguration\n', headers: YAML, status: 400, reason: 'BadRequest', message: /does not match the expected API version/ },
  { name: 'wrong kind', method: 'POST', path: `${PLC}?dryRun=All`, body: json({ ...validPlc('x'), kind: 'FlowSchema' }), status: 400, reason: 'BadRequest', message: /^FlowSchema in version "v1" cannot be handled as a PriorityLevelConfiguration/ },
  // Unknown and duplicate fields under each fieldValidation mode
  { name: 'unknown field, Strict', method: 'POST', path: `${PLC}?fieldValidation=Strict&dryRun=All`, body: json(validPlc('x', { bogus: 1 })), status: 400, reason: 'BadRequest', message: /strict decoding error: unknown field "bogus"/ },
  { name: 'unknown field, Warn (accepted with a warning)', method: 'POST', path: `${PLC}?fieldValidation=Warn&dryRun=All`, body: json(validPlc('x', { bogus: 1 })), status: 201, message: /"kind":"PriorityLevelConfiguration"/, header: ['warning', /^299 - "unknown field \\"bogus\\""$/] },
  { name: 'unknown field, Ignore (accepted)', method: 'POST', path: `${PLC}?fieldValidation=Ignore&dryRun=All`, body: json(validPlc('x', { bogus: 1 })), status: 201, message: /^(?!.*bogus)/ },
  { name: 'duplicate field, Strict', method: 'POST', path: `${PLC}?fieldValidation=Strict&dryRun=All`, body: json(validPlc('x')).replace('"kind"', '"kind":"X","kind"'), status: 400, reason: 'BadRequest', message: /strict decoding error: duplicate field "kind"/ },
  { name: 'unknown fieldValidation value', method: 'POST', path: `${PLC}?fieldValidation=Maybe&dryRun=All`, body: json(validPlc('x')), status: 422, reason: 'Invalid', message: /^CreateOptions\.meta\.k8s\.io "" is invalid: fieldValidation: Unsupported value: "Maybe"/ },
  { name: 'wrong field type', method: 'POST', path: `${PLC}?dryRun=All`, body: json({ ...validPlc('x'), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 'five', limitResponse: { type: 'Reject' } } } }), status: 400, reason: 'BadRequest', message: /cannot be handled as a PriorityLevelConfiguration/ },
  { name: 'int32 written with an exponent', method: 'POST', path: `${PLC}?dryRun=All`, body: json(validPlc('x')).replace('"nominalConcurrencyShares":5', '"nominalConcurrencyShares":5e3'), status: 400, reason: 'BadRequest', message: /json: cannot unmarshal number 5e3 into Go struct field PriorityLevelConfiguration\.spec\.limited\.nominalConcurrencyShares of type int32$/ },
  { name: 'int32 that underflows to 0', method: 'POST', path: `${PLC}?dryRun=All`, body: json(validPlc('x')).replace('"nominalConcurrencyShares":5', '"nominalConcurrencyShares":1e-400'), status: 400, reason: 'BadRequest', message: /json: cannot unmarshal number 1e-400 into Go struct field PriorityLevelConfiguration\.spec\.limited\.nominalConcurrencyShares of type int32$/ },
  // Sizes and depth
  { name: 'body over 3 MiB', method: 'POST', path: PLC, body: Buffer.alloc(3 * 1024 * 1024 + 1, 0x20), status: 413, reason: 'RequestEntityTooLarge', message: /^Request entity too large: limit is 3145728$/ },
  { name: 'JSON nested 300 deep', method: 'POST', path: `${PLC}?dryRun=All`, body: `{"apiVersion":"${GROUP}/v1","kind":"PriorityLevelConfiguration","x":${nested(300)}}`, status: 400, reason: 'BadRequest', message: /nests objects and lists more than 256 levels deep/ },
  { name: 'YAML nested 300 deep', method: 'POST', path: `${PLC}?dryRun=All`, body: `x: ${'['.repeat(300)}${']'.repeat(300)}\n`, headers: YAML, status: 400, reason: 'BadRequest', message: /more than 256 levels deep/ },
  { name: 'merge patch nested 20,000 deep', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: `{"x":${nested(20_000)}}`, headers: MERGE, status: 400, reason: 'BadRequest', message: /more than 256 levels deep/ },
  { name: 'apply patch nested 20,000 deep', method: 'PATCH', path: `${PLC}/good?dryRun=All&fieldManager=t`, body: `{"x":${nested(20_000)}}`, headers: APPLY, status: 400, reason: 'BadRequest', message: /more than 256 levels deep/ },
  { name: 'JSON patch with 10,001 operations', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: json(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'PriorityLevelConfiguration' }))), headers: JSON_PATCH, status: 413, reason: 'RequestEntityTooLarge', message: /The allowed maximum operations in a JSON patch is 10000, got 10001/ },
  // Invalid names and objects
  { name: 'invalid name', method: 'POST', path: `${PLC}?dryRun=All`, body: json(validPlc('Bad_Name')), status: 422, reason: 'Invalid', message: /"Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/ },
  { name: 'name too long', method: 'POST', path: `${PLC}?dryRun=All`, body: json(validPlc('a'.repeat(254))), status: 422, reason: 'Invalid', message: /metadata\.name: Invalid value: "a+": must be no more than 253 characters/ },
  { name: 'name with % in the URL', method: 'GET', path: `${PLC}/%zz`, status: 400, reason: 'BadRequest', message: /^Name parameter invalid: "%zz": may not contain '%'$/ },
  { name: 'invalid spec', method: 'POST', path: `${PLC}?dryRun=All`, body: json({ ...validPlc('x'), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 200, limitResponse: { type: 'Reject' } } } }), status: 422, reason: 'Invalid', message: /spec\.limited\.lendablePercent: Invalid value: 200: must be between 0 and 100, inclusive/ },
  { name: 'resourceVersion on create', method: 'POST', path: `${PLC}?dryRun=All`, body: json({ ...validPlc('x'), metadata: { name: 'x', resourceVersion: '5' } }), status: 400, reason: 'BadRequest', message: /resourceVersion should not be set on objects to be created/ },
  { name: 'name in body differs from the URL', method: 'PUT', path: `${PLC}/good?dryRun=All`, body: json(validPlc('other')), status: 400, reason: 'BadRequest', message: /^the name of the object \(other\) does not match the name on the URL \(good\)$/ },
  // Invalid query values
  { name: 'limit=abc', method: 'GET', path: `${PLC}?limit=abc`, status: 400, reason: 'BadRequest', message: /^strconv\.ParseInt: parsing "abc": invalid syntax$/ },
  { name: 'limit=-1 means no limit', method: 'GET', path: `${PLC}?limit=-1`, status: 200, message: /"kind":"PriorityLevelConfigurationList"/ },
  { name: 'watch=maybe is a watch', method: 'GET', path: `${PLC}?watch=maybe&timeoutSeconds=1`, status: 200, message: /^\{"type":"ADDED"/ },
  { name: 'resourceVersion=abc', method: 'GET', path: `${PLC}?resourceVersion=abc`, status: 400, reason: 'BadRequest', message: /^resourceVersion: Invalid value: "abc": strconv\.ParseUint: parsing "abc": invalid syntax$/ },
  { name: 'resourceVersion=abc on a watch', method: 'GET', path: `${PLC}?watch=true&resourceVersion=abc`, status: 400, reason: 'BadRequest', message: /Invalid value: "abc"/ },
  { name: 'resourceVersionMatch=Bogus', method: 'GET', path: `${PLC}?resourceVersion=1&resourceVersionMatch=Bogus`, status: 422, reason: 'Invalid', message: /resourceVersionMatch: Unsupported value: "Bogus"/ },
  { name: 'bad label selector', method: 'GET', path: `${PLC}?labelSelector=a%20in%20(`, status: 400, reason: 'BadRequest', message: /^unable to parse requirement: / },
  { name: 'bad label selector on a watch', method: 'GET', path: `${PLC}?watch=true&labelSelector=!!`, status: 400, reason: 'BadRequest', message: /^unable to parse requirement: / },
  { name: 'unknown field selector', method: 'GET', path: `${PLC}?fieldSelector=spec.type%3DLimited`, status: 400, reason: 'BadRequest', message: /^"spec\.type" is not a known field selector: only "metadata\.name", "metadata\.namespace"$/ },
  { name: 'field selector without operator', method: 'GET', path: `${PLC}?fieldSelector=metadata.name`, status: 400, reason: 'BadRequest', message: /^invalid selector: / },
  { name: 'invalid continue token', method: 'GET', path: `${PLC}?limit=1&continue=garbage`, status: 400, reason: 'BadRequest', message: /^invalid continue token: / },
  { name: 'continue with a resourceVersion', method: 'GET', path: `${PLC}?continue=abc&resourceVersion=5`, status: 400, reason: 'BadRequest', message: /^specifying resource version is not allowed when using continue$/ },
  { name: 'timeout=xyz', method: 'GET', path: `${PLC}?timeout=xyz`, status: 400, reason: 'BadRequest', message: /^invalid timeout specified in the request URL - time: invalid duration "xyz"$/ },
  { name: 'timeoutSeconds=abc', method: 'GET', path: `${PLC}?timeoutSeconds=abc`, status: 400, reason: 'BadRequest', message: /strconv\.ParseInt: parsing "abc"/ },
  { name: 'gracePeriodSeconds=abc', method: 'DELETE', path: `${PLC}/good?dryRun=All&gracePeriodSeconds=abc`, status: 400, reason: 'BadRequest', message: /strconv\.ParseInt: parsing "abc"/ },
  { name: 'propagationPolicy=Bogus', method: 'DELETE', path: `${PLC}/good?dryRun=All&propagationPolicy=Bogus`, status: 422, reason: 'Invalid', message: /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Unsupported value: "Bogus"/ },
  { name: 'DELETE body: gracePeriodSeconds written with an exponent', method: 'DELETE', path: `${PLC}/good`, body: '{"gracePeriodSeconds":5e3,"dryRun":["All"]}', headers: { 'Content-Type': 'application/json' }, status: 400, reason: 'BadRequest', message: /^json: cannot unmarshal number 5e3 into Go struct field DeleteOptions\.gracePeriodSeconds of type int64$/ },
  { name: 'dryRun=Bogus', method: 'POST', path: `${PLC}?dryRun=Bogus`, body: json(validPlc('x')), status: 422, reason: 'Invalid', message: /dryRun: Unsupported value: \["Bogus"\]: supported values: "All"/ },
  // Malformed patches of each type
  { name: 'merge patch: malformed', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '{bad', headers: MERGE, status: 400, reason: 'BadRequest', message: /^error decoding patch: invalid character 'b'/ },
  { name: 'merge patch: makes the object invalid', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '{"spec":{"type":"Bogus"}}', headers: MERGE, status: 422, reason: 'Invalid', message: /spec\.type: Unsupported value: "Bogus": supported values: "Exempt", "Limited"/ },
  { name: 'strategic merge patch: malformed', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '{bad', headers: STRATEGIC, status: 400, reason: 'BadRequest', message: /invalid character 'b'/ },
  { name: 'JSON patch: malformed', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '[{', headers: JSON_PATCH, status: 400, reason: 'BadRequest', message: /^error decoding patch: / },
  { name: 'JSON patch: an object, not a list', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '{"op":"add"}', headers: JSON_PATCH, status: 400, reason: 'BadRequest', message: /cannot unmarshal object into Go value of type \[\]handlers\.jsonPatchOp/ },
  { name: 'JSON patch: unknown op', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '[{"op":"frobnicate","path":"/spec"}]', headers: JSON_PATCH, status: 422, reason: 'Invalid', message: /^Unexpected kind: frobnicate$/ },
  { name: 'JSON patch: missing path', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '[{"op":"remove","path":"/nope/x"}]', headers: JSON_PATCH, status: 422, reason: 'Invalid', message: /missing value/ },
  { name: 'JSON patch: failed test', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '[{"op":"test","path":"/spec/type","value":"Exempt"}]', headers: JSON_PATCH, status: 422, reason: 'Invalid', message: /^testing value \/spec\/type failed: test failed$/ },
  { name: 'JSON patch: int32 value written with an exponent', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: '[{"op":"replace","path":"/spec/limited/nominalConcurrencyShares","value":5e3}]', headers: JSON_PATCH, status: 422, reason: 'Invalid', message: /^PriorityLevelConfiguration\.flowcontrol\.apiserver\.k8s\.io "good" is invalid: patch: Invalid value: .*json: cannot unmarshal number 5e3 into Go struct field PriorityLevelConfiguration\.spec\.limited\.nominalConcurrencyShares of type int32$/ },
  { name: 'apply patch: malformed YAML', method: 'PATCH', path: `${PLC}/good?dryRun=All&fieldManager=t`, body: 'a: [', headers: APPLY, status: 400, reason: 'BadRequest', message: /^error decoding YAML: / },
  { name: 'apply patch: no fieldManager', method: 'PATCH', path: `${PLC}/good?dryRun=All`, body: 'a: 1', headers: APPLY, status: 422, reason: 'Invalid', message: /fieldManager: Required value: is required for apply patch/ },
  // Wrong content types
  { name: 'create as text/plain', method: 'POST', path: PLC, body: 'x', headers: { 'Content-Type': 'text/plain' }, status: 415, reason: 'UnsupportedMediaType', message: /^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml, application\/vnd\.kubernetes\.protobuf$/ },
  { name: 'create as protobuf without the envelope', method: 'POST', path: PLC, body: 'x', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, status: 400, reason: 'BadRequest', message: /^the object provided is unrecognized \(must be of type PriorityLevelConfiguration\): provided value is not protobuf \(78\)$/ },
  { name: 'patch as protobuf', method: 'PATCH', path: `${PLC}/good`, body: 'k8s\u0000', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, status: 415, reason: 'UnsupportedMediaType', message: /application\/json-patch\+json, application\/merge-patch\+json/ },
  { name: 'patch as text/plain', method: 'PATCH', path: `${PLC}/good`, body: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415, reason: 'UnsupportedMediaType', message: /application\/json-patch\+json, application\/merge-patch\+json/ },
  { name: 'patch as application/json', method: 'PATCH', path: `${PLC}/good`, body: '{}', status: 415, reason: 'UnsupportedMediaType', message: /unknown format/ },
  { name: 'Accept nothing servable', method: 'GET', path: PLC, headers: { Accept: 'application/bogus' }, status: 406, reason: 'NotAcceptable', message: /^only the following media types are accepted: / },
  // Unsupported methods and paths
  { name: 'POST to an object', method: 'POST', path: `${PLC}/good`, body: json(validPlc('good')), status: 405, reason: 'MethodNotAllowed', message: /^the server does not allow this method on the requested resource$/ },
  { name: 'PUT to the collection', method: 'PUT', path: `${PLC}?dryRun=All`, body: json(validPlc('x')), status: 405, reason: 'MethodNotAllowed', message: /does not allow this method/ },
  { name: 'PATCH of the collection', method: 'PATCH', path: `${PLC}?dryRun=All`, body: '{}', headers: MERGE, status: 405, reason: 'MethodNotAllowed', message: /does not allow this method/ },
  { name: 'DELETE of a status', method: 'DELETE', path: `${PLC}/good/status?dryRun=All`, status: 405, reason: 'MethodNotAllowed', message: /does not allow this method/ },
  { name: 'OPTIONS', method: 'OPTIONS', path: PLC, status: 405, reason: 'MethodNotAllowed', message: /does not allow this method/ },
  { name: 'TRACE', method: 'TRACE', path: PLC, status: 405, reason: 'MethodNotAllowed', message: /does not allow this method/ },
  { name: 'PROPFIND', method: 'PROPFIND', path: PLC, status: 405, reason: 'MethodNotAllowed', message: /does not allow this method/ },
  { name: 'unknown resource', method: 'GET', path: `/apis/${GROUP}/v1/nothings`, status: 404, reason: 'NotFound', message: /^the server could not find the requested resource$/ },
  { name: 'unknown version', method: 'GET', path: `/apis/${GROUP}/v2/prioritylevelconfigurations`, status: 404, reason: 'NotFound', message: /could not find the requested resource/ },
  { name: 'unknown subresource', method: 'GET', path: `${PLC}/good/bogus`, status: 404, reason: 'NotFound', message: /could not find the requested resource/ },
  { name: 'duplicate key in YAML, Strict', method: 'POST', path: `${PLC}?fieldValidation=Strict&dryRun=All`, body: 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata:\n  name: first\n  name: second\nspec:\n  type: Exempt\n', headers: YAML, status: 400, reason: 'BadRequest', message: /strict decoding error: error converting YAML to JSON: yaml: unmarshal errors:\n {2}line 5: key "name" already set in map$/ },
  { name: 'invalid time', method: 'POST', path: `${PLC}?dryRun=All`, body: json(validPlc('x', { status: { conditions: [{ type: 'A', status: 'True', lastTransitionTime: 'yesterday' }] } })), status: 400, reason: 'BadRequest', message: /^PriorityLevelConfiguration in version "v1" cannot be handled as a PriorityLevelConfiguration: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"$/ },
  { name: 'a DeleteOptions body of another kind', method: 'DELETE', path: `${PLC}/good?dryRun=All`, body: '{"kind":"Pod","apiVersion":"v1"}', status: 400, reason: 'BadRequest', message: /^no kind "Pod" is registered for version "v1" in scheme "pkg\/apis\/meta\/internalversion\/scheme\/register.go:27"$/ },
  { name: 'malformed continue token', method: 'GET', path: `${PLC}?limit=1&continue=${Buffer.from('{"v":').toString('base64url')}`, status: 400, reason: 'BadRequest', message: /^invalid continue token: continue key is not valid: unexpected end of JSON input$/ },
  { name: 'missing object', method: 'GET', path: `${PLC}/nope`, status: 404, reason: 'NotFound', message: /^prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io "nope" not found$/ },
  // Conflicts
  { name: 'create what exists', method: 'POST', path: `${PLC}?dryRun=All`, body: json(validPlc('good')), status: 409, reason: 'AlreadyExists', message: /"good" already exists$/ },
  { name: 'update with a stale resourceVersion', method: 'PUT', path: `${PLC}/good?dryRun=All`, body: json({ ...validPlc('good'), metadata: { name: 'good', resourceVersion: '1' } }), status: 409, reason: 'Conflict', message: /the object has been modified; please apply your changes to the latest version and try again$/ },
  { name: 'delete with a wrong UID precondition', method: 'DELETE', path: `${PLC}/good?dryRun=All`, body: '{"preconditions":{"uid":"nope"}}', status: 409, reason: 'Conflict', message: /Precondition failed: UID in precondition: nope/ },
  { name: 'malformed DeleteOptions', method: 'DELETE', path: `${PLC}/good?dryRun=All`, body: '{bad', status: 400, reason: 'BadRequest', message: /^couldn't get version\/kind; json parse error: invalid character 'b' looking for beginning of object key string$/ },
];
