// Objects keyed by names that a server or a user chose (input keys, form fields, tool arguments): `__proto__`,
// `constructor` or `prototype` are names like any other. `obj[name] = value` with name `__proto__` sets the
// object's prototype instead of a property (the key is silently lost), and reading `obj.__proto__` or
// `obj.constructor` of an object that lacks them returns Object.prototype's; these helpers never do either.
// (Object spread and Object.fromEntries define own properties and are safe; Object.assign and assignment are not.)

/** Sets an own, enumerable property, whatever its name. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The own property `key`, or undefined (never one inherited from Object.prototype). */
export function getOwn<T>(source: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(source, key) ? source[key] : undefined;
}

/** A copy of `source` with `key` set (an own property), as object spread would make it. */
export function withOwn<T>(source: Readonly<Record<string, T>>, key: string, value: T): Record<string, T> {
  const copy = { ...source };
  setOwn(copy, key, value);
  return copy;
}

/** A copy of `source` without `key`. */
export function withoutOwn<T>(source: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const copy = { ...source };
  delete copy[key];
  return copy;
}
