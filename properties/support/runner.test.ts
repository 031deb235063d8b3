import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_SEED, checkAsyncProperty, checkProperty, expectAsyncPropertyToFail, expectPropertyToFail, parseSeed, readPropertySettings } from './runner.ts';

// Fixed settings, so that `npm run properties -- --only …` does not change what these tests see.
const settings = readPropertySettings({});

test('seeds: 32-bit decimals pass through, any other text folds to a fixed 32-bit integer', () => {
  assert.is(parseSeed('42'), 42);
  assert.is(parseSeed('-7'), -7);
  const commit = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3';
  assert.is(parseSeed(commit), parseSeed(commit));
  assert.ok(Number.isInteger(parseSeed(commit)) && Math.abs(parseSeed(commit)) < 2 ** 31);
  assert.is.not(parseSeed(commit), parseSeed('a94a8fe5ccb19ba61c4c0873d391e987982fbbd4'));
  assert.is.not(parseSeed('99999999999'), 99999999999);
});

test('settings come from the environment, with clear errors for bad values', () => {
  assert.equal(readPropertySettings({}), { seed: DEFAULT_SEED, seedText: undefined, runsOverride: undefined, path: undefined, only: undefined });
  const s = readPropertySettings({ FAIRWAY_PROPERTY_RUNS: '25', FAIRWAY_PROPERTY_SEED: 'main', FAIRWAY_PROPERTY_PATH: '3:1', FAIRWAY_PROPERTY_ONLY: 'x' });
  assert.equal(s, { seed: parseSeed('main'), seedText: 'main', runsOverride: 25, path: '3:1', only: 'x' });
  assert.throws(() => readPropertySettings({ FAIRWAY_PROPERTY_RUNS: 'lots' }), /FAIRWAY_PROPERTY_RUNS must be a positive integer/);
  assert.throws(() => readPropertySettings({ FAIRWAY_PROPERTY_PATH: '1:2' }), /FAIRWAY_PROPERTY_ONLY/);
});

test('a failing property throws with its name, seed, path, shrunk counterexample and replay command', () => {
  try {
    checkProperty(
      'demo: small numbers',
      fc.property(fc.nat(), (n) => n < 50),
      { runs: 200, settings },
    );
  } catch (error) {
    const message = String((error as Error).message);
    assert.match(message, /property "demo: small numbers" failed: seed=-?\d+ path="[\d:]+"/);
    assert.match(message, /counterexample: \[50\]/);
    assert.match(message, /replay: npm run properties -- --seed -?\d+ --path "[\d:]+" --only "demo: small numbers"/);
    return;
  }
  assert.unreachable('the property should have failed');
});

test('async properties are checked the same way', async () => {
  await checkAsyncProperty(
    'demo: async pass',
    fc.asyncProperty(fc.nat(), async (n) => n >= 0),
    { runs: 20, settings },
  );
  try {
    await checkAsyncProperty(
      'demo: async fail',
      fc.asyncProperty(fc.nat(), async (n) => n < 10),
      { runs: 200, settings },
    );
  } catch (error) {
    assert.match(String((error as Error).message), /property "demo: async fail" failed: seed=/);
    return;
  }
  assert.unreachable('the async property should have failed');
});

test('a control that passes is itself a failure', () => {
  assert.throws(
    () =>
      expectPropertyToFail(
        'demo: control',
        fc.property(fc.nat(), () => true),
        { runs: 10, settings },
      ),
    /must reject the faulty subject/,
  );
  const details = expectPropertyToFail(
    'demo: control',
    fc.property(fc.nat(), (n) => n < 5),
    { runs: 100, settings },
  );
  assert.ok(details.failed);
});

test('an async control that passes is itself a failure', async () => {
  try {
    await expectAsyncPropertyToFail(
      'demo: async control',
      fc.asyncProperty(fc.nat(), async () => true),
      { runs: 10, settings },
    );
    assert.unreachable('a passing control must throw');
  } catch (error) {
    assert.match(String((error as Error).message), /must reject the faulty subject/);
  }
  const details = await expectAsyncPropertyToFail(
    'demo: async control',
    fc.asyncProperty(fc.nat(), async (n) => n < 5),
    { runs: 100, settings },
  );
  assert.ok(details.failed);
});

test.run();
