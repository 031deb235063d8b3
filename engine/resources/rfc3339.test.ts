import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatRfc3339Seconds, normalizeRfc3339, parseRfc3339 } from './rfc3339.ts';

const LAYOUT = '"2006-01-02T15:04:05Z07:00"';

test("invalid times get the text of Go's time.ParseError", () => {
  const cases: [string, string][] = [
    ['foo', `parsing time "foo" as ${LAYOUT}: cannot parse "foo" as "2006"`],
    ['2024-13-01T00:00:00Z', 'parsing time "2024-13-01T00:00:00Z": month out of range'],
    ['2024-01-01', `parsing time "2024-01-01" as ${LAYOUT}: cannot parse "" as "T"`],
    ['2024/01/01T00:00:00Z', `parsing time "2024/01/01T00:00:00Z" as ${LAYOUT}: cannot parse "/01/01T00:00:00Z" as "-"`],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-01-01T00:00:00', `parsing time "2024-01-01T00:00:00" as ${LAYOUT}: cannot parse "" as "Z07:00"`],
    ['2024-01-01T00:00:00+0100', `parsing time "2024-01-01T00:00:00+0100" as ${LAYOUT}: cannot parse "+0100" as "Z07:00"`],
    ['2024-01-01T00:00:00Zabc', 'parsing time "2024-01-01T00:00:00Zabc": extra text: "abc"'],
    ['2024-01-01T24:00:00Z', 'parsing time "2024-01-01T24:00:00Z": hour out of range'],
    ['2024-01-01T00:60:00Z', 'parsing time "2024-01-01T00:60:00Z": minute out of range'],
    ['2024-01-01T00:00:60Z', 'parsing time "2024-01-01T00:00:60Z": second out of range'],
    ['2024-01-01T00:00:00+25:00', 'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range'],
    ['2024-1-01T00:00:00Z', `parsing time "2024-1-01T00:00:00Z" as ${LAYOUT}: cannot parse "1-01T00:00:00Z" as "01"`],
    ['2024-01-01T00:00:00Zé', 'parsing time "2024-01-01T00:00:00Z\\xc3\\xa9": extra text: "\\xc3\\xa9"'],
  ];
  for (const [input, message] of cases) {
    const parsed = parseRfc3339(input);
    assert.equal(parsed, { ok: false, message }, input);
  }
});

test('valid times are normalised to UTC whole seconds, as metav1.Time writes them', () => {
  const cases: [string, string | undefined][] = [
    ['2024-01-01T10:00:00Z', '2024-01-01T10:00:00Z'],
    ['2024-01-01T10:00:00+02:00', '2024-01-01T08:00:00Z'],
    ['2024-01-01T01:00:00-01:30', '2024-01-01T02:30:00Z'],
    ['2024-01-01T10:00:00.123456789Z', '2024-01-01T10:00:00Z'],
    ['2024-01-01T9:00:00Z', '2024-01-01T09:00:00Z'],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59Z'],
    ['0050-03-01T00:00:00Z', '0050-03-01T00:00:00Z'],
    ['0001-01-01T00:00:00Z', undefined],
  ];
  for (const [input, want] of cases) assert.equal(normalizeRfc3339(input), { ok: true, value: want }, input);
  const parsed = parseRfc3339('2008-01-01T01:01:01Z');
  assert.equal(parsed, { ok: true, seconds: 1199149261, nanos: 0 });
  assert.equal(parseRfc3339('1970-01-01T00:00:00.5Z'), { ok: true, seconds: 0, nanos: 500_000_000 });
});

test('formatting agrees with Date for the years Date covers, and refuses years Go cannot marshal', () => {
  for (const seconds of [0, 1199149261, -1, -62135596800, 253402300799, 951782400]) {
    assert.is(formatRfc3339Seconds(seconds), `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`);
  }
  assert.is(formatRfc3339Seconds(253402300800), undefined);
  assert.is(formatRfc3339Seconds(-62167219201), undefined);
});

test.run();
