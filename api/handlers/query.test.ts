import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkResourceVersion, defaultFieldManager, parseDeleteOptions, parsePatchOptions, parseWriteOptions, QueryReader } from './query.ts';
import { parseGoJson } from '../../engine/go-json.ts';
import { longestBigIntText } from '../../engine/testing/longest-bigint-text.ts';
import { statusOf } from '../../engine/status/testing/status-of.ts';

const q = (text: string) => new QueryReader(new URLSearchParams(text));

test('integers parse as Go parses them (bad values are 400 with strconv words); booleans are lenient', () => {
  assert.is(q('limit=500').int('limit'), 500);
  assert.is(q('limit=').int('limit'), undefined);
  assert.is(q('watch=T').bool('watch'), true);
  const limit = statusOf(() => q('limit=1e3').int('limit'));
  assert.is(limit.code, 400);
  assert.is(limit.message, 'strconv.ParseInt: parsing "1e3": invalid syntax');
  assert.is(statusOf(() => q('limit=99999999999999999999').int('limit')).message, 'strconv.ParseInt: parsing "99999999999999999999": value out of range');
  // apimachinery's Convert_Slice_string_To_bool: only 0 and false (any case) are false.
  assert.equal(
    ['watch=yes', 'watch=', 'watch=f', 'watch=1'].map((text) => q(text).bool('watch')),
    [true, true, true, true],
  );
  assert.equal(
    ['watch=0', 'watch=FALSE', 'watch=false&watch=true'].map((text) => q(text).bool('watch')),
    [false, false, false],
  );
  assert.is(q('limit=1').bool('watch'), undefined);
  assert.is(checkResourceVersion('42'), '42');
  assert.is(statusOf(() => checkResourceVersion('-1')).code, 400);
});

test('resourceVersion is a uint64 as Go parses it: leading zeros allowed, the range checked exactly, a megabyte of digits refused', () => {
  const max = '18446744073709551615';
  assert.is(checkResourceVersion(max), max);
  assert.is(checkResourceVersion(`0000000000${max}`), `0000000000${max}`, 'leading zeros do not count against the range');
  const outOfRange = (value: string) => statusOf(() => checkResourceVersion(value)).message ?? '';
  assert.match(outOfRange('18446744073709551616'), 'value out of range');
  assert.match(outOfRange(`1${'0'.repeat(20)}`), 'value out of range');
  assert.match(outOfRange('9'.repeat(1 << 20)), 'value out of range');
  assert.match(outOfRange(`${'9'.repeat(30)}x`), 'invalid syntax');
});

test('write options: defaults, dryRun and fieldValidation values, field manager rules', () => {
  assert.equal(parseWriteOptions(q(''), 'CreateOptions'), { dryRun: false, fieldManager: '', fieldValidation: 'Warn' });
  assert.equal(parseWriteOptions(q('dryRun=All&fieldManager=me&fieldValidation=Strict'), 'UpdateOptions'), {
    dryRun: true,
    fieldManager: 'me',
    fieldValidation: 'Strict',
  });
  const dry = statusOf(() => parseWriteOptions(q('dryRun=Yes'), 'CreateOptions'));
  assert.is(dry.code, 422);
  assert.match(dry.message!, /^CreateOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value: \["Yes"\]: supported values: "All"$/);
  assert.match(statusOf(() => parseWriteOptions(q('fieldValidation=strict'), 'UpdateOptions')).message!, /supported values: "", "Ignore", "Strict", "Warn"$/);
  assert.match(
    statusOf(() => parseWriteOptions(q(`fieldManager=${'m'.repeat(129)}`), 'CreateOptions')).message!,
    /fieldManager: Too long: must have at most 128 bytes/,
  );
  assert.match(statusOf(() => parseWriteOptions(q('fieldManager=a%01b'), 'CreateOptions')).message!, /invalid character U\+0001 \(at position 1\)/);
  assert.is(defaultFieldManager('', 'kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07'), 'kubectl');
  assert.is(defaultFieldManager('mine', 'kubectl/v1.32.4'), 'mine');
});

test('patch options: force only with apply, apply needs a field manager', () => {
  assert.equal(parsePatchOptions(q('fieldManager=x&force=true'), true), { dryRun: false, fieldManager: 'x', fieldValidation: 'Warn', force: true });
  assert.match(
    statusOf(() => parsePatchOptions(q('force=false'), false)).message!,
    /^PatchOptions\.meta\.k8s\.io "" is invalid: force: Forbidden: may not be specified for non-apply patch$/,
  );
  assert.match(statusOf(() => parsePatchOptions(q(''), true)).message!, /fieldManager: Required value: is required for apply patch/);
});

test('delete options come from the body when there is one, else the query', () => {
  assert.equal(parseDeleteOptions(q('gracePeriodSeconds=0&propagationPolicy=Foreground'), { value: undefined }), {
    dryRun: false,
    gracePeriodSeconds: 0,
    propagationPolicy: 'Foreground',
  });
  assert.equal(parseDeleteOptions(q('propagationPolicy=Orphan'), { value: { propagationPolicy: 'Background', preconditions: { uid: 'u' } } }), {
    dryRun: false,
    propagationPolicy: 'Background',
    preconditions: { uid: 'u' },
  });
  assert.is(parseDeleteOptions(q(''), { value: { dryRun: ['All'] } }).dryRun, true);
  const both = statusOf(() => parseDeleteOptions(q(''), { value: { orphanDependents: true, propagationPolicy: 'Background' } }));
  assert.match(
    both.message!,
    /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set$/,
  );
  assert.is(
    statusOf(() => parseDeleteOptions(q(''), { value: { gracePeriodSeconds: 'now' } })).message,
    'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
  );
  assert.is(statusOf(() => parseDeleteOptions(q(''), { value: [1] })).code, 400);
});

test('delete options: gracePeriodSeconds takes what Go decodes into an int64, read from the body as written', () => {
  const body = (text: string) => {
    const parsed = parseGoJson(text);
    if ('error' in parsed) throw new Error(parsed.error);
    return { value: parsed.value, numberLiterals: parsed.numberLiterals };
  };
  for (const literal of ['5e3', '5.0', '1e-400', '9223372036854775808']) {
    assert.is(
      statusOf(() => parseDeleteOptions(q(''), body(`{"gracePeriodSeconds":${literal}}`))).message,
      `json: cannot unmarshal number ${literal} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`,
    );
  }
  assert.is(parseDeleteOptions(q(''), body('{"gracePeriodSeconds":9007199254740993}')).gracePeriodSeconds, 9007199254740992);
  assert.is(parseDeleteOptions(q(''), body('{"gracePeriodSeconds":30}')).gracePeriodSeconds, 30);
});

test('delete options go through the DeleteOptions shape: Go type names, nested fields, unknown fields dropped', () => {
  const message = (value: unknown) => statusOf(() => parseDeleteOptions(q(''), { value })).message;
  assert.is(message({ orphanDependents: 'yes' }), 'json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool');
  assert.is(
    message({ propagationPolicy: 1 }),
    'json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation',
  );
  assert.is(message({ dryRun: 'All' }), 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string');
  assert.is(message({ gracePeriodSeconds: true }), 'json: cannot unmarshal bool into Go struct field DeleteOptions.gracePeriodSeconds of type int64');
  // A precondition of the wrong type was silently ignored before; Go's decoder refuses it, as for any body.
  assert.is(message({ preconditions: { uid: 7 } }), 'json: cannot unmarshal number into Go struct field DeleteOptions.preconditions.uid of type string');
  assert.is(message({ preconditions: 'u' }), 'json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions');
  assert.equal(parseDeleteOptions(q(''), { value: { bogus: 1, preconditions: { resourceVersion: '5', extra: true }, gracePeriodSeconds: null } }), {
    dryRun: false,
    preconditions: { resourceVersion: '5' },
  });
});

test('a megabyte of digits in an integer parameter or a resourceVersion is out of range, read without a BigInt of it', () => {
  const huge = '9'.repeat(1 << 20);
  const longest = longestBigIntText(() => {
    for (const name of ['limit', 'timeoutSeconds', 'gracePeriodSeconds'])
      assert.match(statusOf(() => new QueryReader(new URLSearchParams([[name, huge]])).int(name)).message ?? '', /: value out of range$/);
    assert.match(statusOf(() => checkResourceVersion(huge)).message ?? '', /: value out of range$/);
  });
  assert.ok(longest <= 21, `a BigInt was made of ${longest} characters`);
});

test.run();
