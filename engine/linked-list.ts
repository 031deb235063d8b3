// A list threaded through its members: adding and deleting cost O(1) and allocate nothing, where a
// Set's rehashing as members come and go was a measurable share of a small request (the server's
// requests in flight, a queue set's live requests). A member carries its own links, so it can be in
// at most one such list.

export interface ListMember<T> {
  listed: boolean;
  listPrevious: T | undefined;
  listNext: T | undefined;
}

export class LinkedList<T extends ListMember<T>> {
  /** The first member (follow `listNext` for the rest, in the order they were added). */
  head: T | undefined = undefined;
  private tail: T | undefined = undefined;
  size = 0;

  /** Appends `member`; a no-op for one already listed. */
  add(member: T): void {
    if (member.listed) return;
    member.listed = true;
    member.listPrevious = this.tail;
    if (this.tail === undefined) this.head = member;
    else this.tail.listNext = member;
    this.tail = member;
    this.size++;
  }

  /** Unlinks `member`; a no-op for one not listed. */
  delete(member: T): void {
    if (!member.listed) return;
    member.listed = false;
    const previous = member.listPrevious;
    const next = member.listNext;
    if (previous === undefined) this.head = next;
    else previous.listNext = next;
    if (next === undefined) this.tail = previous;
    else next.listPrevious = previous;
    // A departed member keeps no links: it must not keep the rest of the list alive.
    member.listPrevious = member.listNext = undefined;
    this.size--;
  }

  /** The members in order, as a copy: visiting them may delete them. */
  toArray(): T[] {
    const all: T[] = [];
    for (let member = this.head; member !== undefined; member = member.listNext) all.push(member);
    return all;
  }
}
