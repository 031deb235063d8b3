// V8 keeps one copy of each string used as a property name (its string table). Comparing two such
// copies is comparing two pointers, and their hash is kept, while comparing a string cut from a
// request (a slice of the target) with a constant reads both, character by character, every time.
// Strings that are read once and then compared or looked up on every request (the parts of a kept
// RequestInfo, a handler's group and version) are worth turning into that one copy.

/**
 * The string table's copy of `text`: equal to it, and the same object for every equal input,
 * except for an array index ("0" to "4294967294"), which V8 keeps as an element, not a property
 * name, so its copy is only equal (a kept name such as "1" then compares by content, as before).
 * No table of its own: V8 drops a string from its table once nothing else holds it, so what this
 * keeps is bounded by what its callers keep.
 */
export function internString(text: string): string {
  // A computed property name (even `__proto__`: only a literal one sets the prototype) is put in
  // the string table; `Object.keys` hands back that copy.
  return Object.keys({ [text]: 0 })[0] ?? text;
}
