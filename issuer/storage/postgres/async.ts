/**
 * TEMPORARY until the async storage seam lands: a store interface with every method returning a
 * Promise of today's result. Removed on rebase (the interfaces themselves become async).
 */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};
