/**
 * The default branch of a switch over a closed union (STYLE.md §2): the compiler rejects the call
 * while a member is unhandled, and a value that slips past the types at run time is a bug, thrown.
 */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
