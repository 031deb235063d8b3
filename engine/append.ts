// `list.push(...more)` passes each element of `more` as an argument, on the stack: around 120,000
// of them overflow it ("Maximum call stack size exceeded"), so a long list from a request, a file or
// a peer turned into a 500 or a crash. Lists whose length someone else decides are appended here.

/** Appends every element of `more` to `list`, one at a time; returns `list`. */
export function append<T>(list: T[], more: Iterable<T>): T[] {
  for (const item of more) list.push(item);
  return list;
}
