/**
 * Names a server chooses (schema properties, prompt arguments, elicitation fields) are data: `constructor`,
 * `__proto__` and `toString` are keys like any other. Build objects keyed by them with `setOwn` (a plain
 * `obj[name] = v` with `__proto__` would replace the prototype instead) and test them with `hasOwn`
 * (`name in obj` and `obj[name] !== undefined` see Object.prototype's members).
 */

/** Sets `obj[key]` as an own, enumerable data property, whatever `key` is. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** True when `obj` itself has `key` (never an inherited member). */
export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** `obj[key]` if `obj` itself has it, else undefined. */
export function getOwn<T>(obj: Record<string, T>, key: string): T | undefined {
  return hasOwn(obj, key) ? obj[key] : undefined;
}
