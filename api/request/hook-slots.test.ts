import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addHook, emptyHookSlots, runHooks } from './hook-slots.ts';

test('hooks run once each with the target and their own argument, in the order added or the reverse, however many', () => {
  for (const lastFirst of [false, true]) {
    for (let count = 0; count <= 5; count++) {
      const ran: string[] = [];
      const hook = (target: string, arg: number) => ran.push(`${target}${arg}`);
      const held = emptyHookSlots<string>();
      for (let i = 0; i < count; i++) addHook(held, hook, i);
      runHooks(held, 't', lastFirst);
      const expected = Array.from({ length: count }, (_, i) => `t${i}`);
      assert.equal(ran, lastFirst ? expected.reverse() : expected, `${count} hooks, lastFirst ${lastFirst}`);
      runHooks(held, 't', lastFirst);
      assert.is(ran.length, count, 'a second run runs nothing');
    }
  }
});

test.run();
