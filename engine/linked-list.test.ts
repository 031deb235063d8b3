import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { LinkedList, type ListMember } from './linked-list.ts';

class Member implements ListMember<Member> {
  listed = false;
  listPrevious: Member | undefined = undefined;
  listNext: Member | undefined = undefined;
  constructor(readonly id: number) {}
}

test('any mix of adds and deletes keeps the members in the order they were added, like an insertion-ordered Set', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 9 })), { maxLength: 200 }), (steps) => {
      const members = Array.from({ length: 10 }, (_, i) => new Member(i));
      const list = new LinkedList<Member>();
      const model = new Set<Member>();
      for (const [adding, i] of steps) {
        const member = members[i]!;
        if (adding) {
          list.add(member);
          model.add(member);
        } else {
          list.delete(member);
          model.delete(member);
        }
        assert.equal(
          list.toArray().map((m) => m.id),
          [...model].map((m) => m.id),
        );
        assert.is(list.size, model.size);
        assert.is(member.listed, model.has(member));
      }
      for (const member of members) if (!member.listed) assert.ok(member.listPrevious === undefined && member.listNext === undefined, 'no links kept');
    }),
    { seed: 11, numRuns: 300 },
  );
});

test('toArray is a copy: deleting while visiting it visits every member', () => {
  const list = new LinkedList<Member>();
  for (let i = 0; i < 5; i++) list.add(new Member(i));
  const seen: number[] = [];
  for (const member of list.toArray()) {
    seen.push(member.id);
    list.delete(member);
  }
  assert.equal(seen, [0, 1, 2, 3, 4]);
  assert.is(list.size, 0);
  assert.is(list.head, undefined);
});

test.run();
