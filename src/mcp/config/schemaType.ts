/**
 * The TypeScript type of a value a JSON Schema accepts, for the handful of shapes the server schema uses (schema.ts):
 * so `ServerDefinition` (types.ts) and `RawServer` (validate.ts) are derived from the schema instead of declared beside
 * it, and a new property of the schema is a new field of both with no other edit (issue 39). A small local helper, not
 * a dependency: `enum`, `const`, `type` (a name or a list of names), arrays by `items`, objects by `properties` and
 * `required` (the rest optional) or by `additionalProperties` (a map). Anything else is `unknown`.
 *
 *   type Timeout = FromSchema<typeof serverSchema.properties.timeout>   // { startup?: number; request?: number }
 */

/** The JSON Schema type names and what they are in TypeScript. */
interface TypeNames {
  string: string;
  boolean: boolean;
  integer: number;
  number: number;
  null: null;
}

/** Intersections of mapped types shown as one object type (hovers and error messages read as the schema does). */
type Flat<T> = { [K in keyof T]: T[K] };

/** An object by its `properties`: the `required` ones present, the rest optional; mutable, as parsed data is. */
type ObjectOf<P, R> = Flat<
  { -readonly [K in keyof P & R]: FromSchema<P[K]> } &
  { -readonly [K in Exclude<keyof P, R>]?: FromSchema<P[K]> }
>;

/** The type of a value the (`as const`) JSON Schema `S` accepts. */
export type FromSchema<S> =
  S extends { readonly enum: readonly (infer E)[] } ? E :
  S extends { readonly const: infer C } ? C :
  S extends { readonly type: 'array'; readonly items: infer I } ? FromSchema<I>[] :
  S extends { readonly type: 'object'; readonly properties: infer P } ?
    ObjectOf<P, S extends { readonly required: readonly (infer R)[] } ? R : never> :
  S extends { readonly type: 'object'; readonly additionalProperties: infer A extends object } ? Record<string, FromSchema<A>> :
  S extends { readonly type: 'object' } ? Record<string, unknown> :
  S extends { readonly type: readonly (infer T)[] } ? TypeNames[T & keyof TypeNames] :
  S extends { readonly type: infer T extends keyof TypeNames } ? TypeNames[T] :
  unknown;
