/**
 * The DID resolver: a table from method name to method resolver (DIF `did-resolver` model).
 *
 * `resolve` never throws (DID Core §7.1: failures are `didResolutionMetadata.error`): an
 * invalid DID gives `invalidDid`, an unknown method `methodNotSupported`, and a method
 * resolver that throws, or returns something that is not a resolution result, gives
 * `internalError` without echoing what it threw (a plugin's message may hold anything).
 *
 * Lazy methods are imported on first use only, so a browser bundle that never meets
 * `did:ledger` never downloads its code.
 */
import { tryParseDid } from './parse.ts';
import { assertDidDocument } from './document.ts';
import { DidError } from './errors.ts';
import {
  resolutionError,
  type DidResolutionOptions,
  type DidResolutionResult,
  type MethodResolver,
  type ParsedDid,
  type Resolvable,
} from './types.ts';

/** What a lazy loader may yield: the resolver, a module with it as default, or DIF `getResolver()` output. */
export type LazyMethodModule = MethodResolver | { default: MethodResolver } | Record<string, MethodResolver>;

export type LazyMethodLoader = () => Promise<LazyMethodModule>;

export interface ResolverOptions {
  /** Method resolvers available at once, keyed by method name (`key`, `web`, …). */
  methods?: Record<string, MethodResolver>;
  /** Loaders called (once) the first time a DID of their method is resolved. */
  lazyMethods?: Record<string, LazyMethodLoader>;
}

export interface DidResolver extends Resolvable {
  resolve(didUrl: string, options?: DidResolutionOptions): Promise<DidResolutionResult>;
  /** Adds or replaces the resolver of `method`. */
  register(method: string, resolver: MethodResolver): void;
}

const METHOD_NAME = /^[a-z0-9]+$/; // DID Core §3.1 method-name

function assertMethodName(method: string): void {
  if (typeof method !== 'string' || !METHOD_NAME.test(method)) {
    throw new DidError('INVALID_METHOD_RESOLVER', 'method name must match [a-z0-9]+ (DID Core §3.1)');
  }
}

function pickResolver(loaded: LazyMethodModule, method: string): MethodResolver | undefined {
  if (typeof loaded === 'function') return loaded;
  if (typeof loaded !== 'object' || loaded === null) return undefined;
  const candidates = loaded as Record<string, unknown>;
  for (const key of ['default', method]) {
    if (typeof candidates[key] === 'function') return candidates[key] as MethodResolver;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Both metadata members are objects: what checkResult reads before it checks the document. */
function hasResultShape(result: unknown): result is DidResolutionResult {
  return isObject(result) && isObject(result.didResolutionMetadata) && isObject(result.didDocumentMetadata);
}

/**
 * Checks what a method resolver returned before anyone relies on it: the right shape, and a
 * well-formed document whose id is the DID asked for (DID Core §5.1.1). A result carrying an
 * error never carries a document.
 */
function checkResult(result: unknown, parsed: ParsedDid): DidResolutionResult {
  if (!hasResultShape(result)) {
    return resolutionError('internalError', `the did:${parsed.method} resolver returned a malformed result`);
  }
  const checked = result;
  if (checked.didResolutionMetadata.error !== undefined) return { ...checked, didDocument: null };
  const doc = checked.didDocument;
  if (!isObject(doc)) return resolutionError('notFound', `the did:${parsed.method} resolver returned no document`);
  // Shape too (every member a key lookup reads): a plugin's odd document must not surface
  // later as a TypeError in a key resolver.
  try {
    assertDidDocument(doc, parsed.did);
  } catch (error) {
    return resolutionError('invalidDidDocument', (error as DidError).message);
  }
  return checked;
}

export function createResolver(options: ResolverOptions = {}): DidResolver {
  const methods = new Map<string, MethodResolver>();
  const lazy = new Map<string, LazyMethodLoader>();
  const loading = new Map<string, Promise<MethodResolver | undefined>>();

  for (const [method, resolver] of Object.entries(options.methods ?? {})) register(method, resolver);
  for (const [method, loader] of Object.entries(options.lazyMethods ?? {})) {
    assertMethodName(method);
    if (typeof loader !== 'function')
      throw new DidError('INVALID_METHOD_RESOLVER', `lazy loader for did:${method} must be a function`);
    lazy.set(method, loader);
  }

  function register(method: string, resolver: MethodResolver): void {
    assertMethodName(method);
    if (typeof resolver !== 'function')
      throw new DidError('INVALID_METHOD_RESOLVER', `resolver for did:${method} must be a function`);
    methods.set(method, resolver);
    lazy.delete(method);
  }

  // Concurrent first resolutions share one import; a failed import is forgotten so the next
  // resolution retries instead of failing forever.
  function load(method: string, loader: LazyMethodLoader): Promise<MethodResolver | undefined> {
    let pending = loading.get(method);
    if (!pending) {
      pending = Promise.resolve()
        .then(loader)
        .then(
          (loaded) => {
            const resolver = pickResolver(loaded, method);
            if (resolver && lazy.get(method) === loader) {
              methods.set(method, resolver);
              lazy.delete(method);
            }
            return resolver;
          },
          () => undefined,
        );
      pending.finally(() => loading.delete(method)).catch(() => undefined);
      loading.set(method, pending);
    }
    return pending;
  }

  async function findMethod(method: string): Promise<MethodResolver | DidResolutionResult> {
    const ready = methods.get(method);
    if (ready) return ready;
    const loader = lazy.get(method);
    if (!loader) return resolutionError('methodNotSupported', `DID method "${method}" is not supported`);
    const loaded = await load(method, loader);
    return loaded ?? resolutionError('internalError', `the did:${method} resolver could not be loaded`);
  }

  const self: DidResolver = {
    register,
    async resolve(didUrl: string, resolutionOptions: DidResolutionOptions = {}): Promise<DidResolutionResult> {
      const parsed = tryParseDid(didUrl);
      if ('error' in parsed) return resolutionError(parsed.error, parsed.message);
      const found = await findMethod(parsed.method);
      if (typeof found !== 'function') return found;
      try {
        return checkResult(await found(parsed.did, parsed, self, resolutionOptions), parsed);
      } catch {
        return resolutionError('internalError', `the did:${parsed.method} resolver failed unexpectedly`);
      }
    },
  };
  return self;
}
