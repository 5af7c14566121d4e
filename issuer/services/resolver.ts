/**
 * The issuer's DID resolver. DIDs hosted here (the issuer, server-custody agents, /v1/dids)
 * are answered from the database on every call — no HTTP, no cache — so a deactivation or a
 * service change is visible to the very next verification. Every other DID goes through the
 * wallet's cached resolver: did:key (pure) and did:web over HTTPS, under the issuer's fetch
 * policy (config/urls.ts `fetchPolicy`: no private or loopback address in production). With
 * SERVICE_CACHE_ADAPTER=redis, did:web resolutions are also shared with the other instances
 * behind that cache (shared-caches/did-cache.ts).
 */
import { createCachedResolver, DID_CACHE_DEFAULTS } from '../../wallet/did/cache.ts';
import { resolveDidKey } from '../../wallet/did/key.ts';
import { didOf } from '../../wallet/did/parse.ts';
import { createResolver } from '../../wallet/did/registry.ts';
import {
  resolutionError,
  type DidResolutionOptions,
  type DidResolutionResult,
  type Resolvable,
} from '../../wallet/did/types.ts';
import { createWebResolver } from '../../wallet/did/web.ts';
import { fetchPolicy, type IssuerConfig } from '../config/index.ts';
import type { DidStore, HostedDidRecord } from '../storage/dids-store.ts';
import { createSharedDidResolver } from './shared-caches/did-cache.ts';
import type { SharedCache } from './shared-caches/redis-cache.ts';

export interface IssuerResolver extends Resolvable {
  resolve(didUrl: string, options?: DidResolutionOptions): Promise<DidResolutionResult>;
  /** Forgets cached resolutions of foreign DIDs (one, or all). */
  invalidate(did?: string): void;
  /**
   * This resolver with hosted DIDs read through `hosted` instead of the store (a read cache,
   * services/read-cache.ts); foreign DIDs share this resolver's cache.
   */
  over(hosted: Pick<DidStore, 'get'>): Resolvable;
}

export interface IssuerResolverOptions {
  config: Pick<IssuerConfig, 'apiBaseUrl' | 'didMethod' | 'didDomain' | 'nodeEnv' | 'fetchPrivateNetwork'>;
  dids: DidStore;
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** did:web resolutions shared with the other instances (SERVICE_CACHE_ADAPTER=redis). */
  shared?: SharedCache;
  now?: () => number;
}

/** DID Core §7.1.3 metadata of a hosted DID, with the document kept when deactivated (so verifiers can say DID_DEACTIVATED). */
export function hostedResolution(record: HostedDidRecord): DidResolutionResult {
  return {
    didDocument: record.document,
    didDocumentMetadata: {
      created: new Date(record.createdAt).toISOString(),
      updated: new Date(record.updatedAt).toISOString(),
      ...(record.deactivated ? { deactivated: true } : {}),
    },
    didResolutionMetadata: { contentType: 'application/did+json' },
  };
}

export function createIssuerResolver(options: IssuerResolverOptions): IssuerResolver {
  const methods = createResolver({
    methods: {
      key: resolveDidKey,
      web: createWebResolver({ ...fetchPolicy(options.config), ...(options.fetch ? { fetch: options.fetch } : {}) }),
    },
  });
  const now = options.now ?? Date.now;
  const { ttlMs } = DID_CACHE_DEFAULTS;
  const remote = createCachedResolver(
    options.shared ? createSharedDidResolver(methods, { cache: options.shared, ttlMs, now }) : methods,
    { ttlMs, now },
  );
  const ownWebPrefix = options.config.didMethod === 'web' ? `did:web:${options.config.didDomain ?? ''}` : undefined;
  const isOwnWeb = (did: string): boolean =>
    ownWebPrefix !== undefined && (did === ownWebPrefix || did.startsWith(`${ownWebPrefix}:`));

  /** resolve and refresh, reading hosted DIDs through `hosted`. */
  const resolvable = (hosted: Pick<DidStore, 'get'>): Resolvable & Pick<IssuerResolver, 'resolve'> => {
    const resolve = async (didUrl: string, resolveOptions?: DidResolutionOptions): Promise<DidResolutionResult> => {
      const did = didOf(didUrl);
      if (did === undefined)
        return resolutionError('invalidDid', 'not a DID: expected did:<method>:<method-specific-id> (DID Core §3.1)');
      const record = await hosted.get(did);
      if (record) return hostedResolution(record);
      // A did:web under our own domain that we do not host does not exist: never ask ourselves over HTTP.
      if (isOwnWeb(did)) return resolutionError('notFound', `${did} is not hosted by this issuer`);
      return remote.resolve(didUrl, resolveOptions);
    };
    return {
      resolve,
      // Hosted documents are read live (or from a validated cache) anyway; other DIDs may be
      // resolved past the cache (a rotated key).
      async refresh(didUrl) {
        const did = didOf(didUrl);
        const remoteDid = did !== undefined && !isOwnWeb(did) && !(await hosted.get(did));
        return remoteDid ? remote.refresh(didUrl) : resolve(didUrl);
      },
    };
  };
  return {
    ...resolvable(options.dids),
    invalidate: (did) => remote.invalidate(did),
    over: resolvable,
  };
}
