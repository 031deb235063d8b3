// V8 keeps one copy of each string used as a property name (its string table). Comparing two such
// copies is comparing two pointers, and their hash is kept, while comparing a string cut from a
// request (a slice of the target) with a constant reads both, character by character, every time.
// Strings that are read once and then compared or looked up on every request (the parts of a kept
// RequestInfo, a handler's group and version) are worth turning into that one copy.

/** The string table's copy of `text` (equal to it; the same object for every equal input). */
export function internString(text: string): string {
  // A computed property name is put in the string table; `Object.keys` hands back that copy.
  return Object.keys({ [text]: 0 })[0] ?? text;
}
