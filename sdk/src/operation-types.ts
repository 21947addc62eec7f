import type { OperationId } from './generated/operations.ts'
import type { operations } from './schema.ts'

/** The types of one operation, read from the generated OpenAPI types. */
type Op<K extends OperationId> = operations[K]
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never
type DataOf<J> = J extends { data: infer D } ? D : never

type OptionalKeys<T> = { [P in keyof T]-?: {} extends Pick<T, P> ? P : never }[keyof T]
/**
 * T, with `undefined` allowed wherever a property is optional, nested objects included: the SDK
 * leaves out what is undefined (a query parameter, a body field), so that a project under
 * exactOptionalPropertyTypes may write `{ missionId }` with a missionId that may be undefined.
 */
export type Loose<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer I)[]
    ? Loose<I>[]
    : T extends object
      ? { [P in keyof T]: P extends OptionalKeys<T> ? Loose<Exclude<T[P], undefined>> | undefined : Loose<T[P]> }
      : T

/** The query parameters an operation takes (filters and paging). */
export type Query<K extends OperationId> = Loose<NonNullable<Op<K>['parameters']['query']>>
/** The JSON body a write takes. */
export type Body<K extends OperationId> = Op<K>['requestBody'] extends { content: { 'application/json': infer B } } ? Loose<B> : never
/** The answer's `data`: what a live write created (201), or what a read found (200). */
export type Data<K extends OperationId> = Op<K>['responses'] extends { 201: infer R }
  ? DataOf<JsonOf<R>>
  : Op<K>['responses'] extends { 200: infer R }
    ? DataOf<JsonOf<R>>
    : never
/** One item of a list. */
export type Item<K extends OperationId> = Data<K> extends (infer I)[] ? I : never
