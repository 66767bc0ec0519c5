/**
 * A value of a plain object by a key that may come from a client (a parameter name, a declared
 * type, a field name). Own keys only: `constructor`, `toString` or `__proto__` never reach what a
 * prototype inherits.
 */
export function ownValue<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
