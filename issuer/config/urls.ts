/**
 * The URLs of the configuration: the issuer's own (API_BASE_URL, and DID_DOMAIN derived from it),
 * the databases' (SERVICE_DATABASE_URL, SERVICE_REDIS_URL), and which URLs a request may make
 * the issuer fetch (`fetchPolicy`).
 *
 * `API_BASE_URL` defaults (development only) to `http://HOST:PORT`, and `DID_DOMAIN` to the host
 * and port of `API_BASE_URL` with the port's ":" percent-encoded (did:web §3.1:
 * `did:web:127.0.0.1%3A8787`). `withBoundPort` re-derives both after binding an ephemeral port.
 */
import { classifyHost, type UrlPolicy } from '../../wallet/net/url-policy.ts';
import type { ParsedEnv } from './env-schema.ts';
import { ConfigError, invalid } from './errors.ts';
import type { IssuerConfig } from './issuer-config.ts';

function isLoopbackUrl(url: string): boolean {
  try {
    return classifyHost(new URL(url).hostname) === 'loopback';
  } catch {
    return false;
  }
}

/** `http://HOST:PORT` with IPv6 literals bracketed. */
export function baseUrlFor(host: string, port: number): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** did:web §3.1: the host of `apiBaseUrl`, with the ":" before a port percent-encoded. */
export function didDomainFor(apiBaseUrl: string): string {
  const url = new URL(apiBaseUrl);
  const host = url.hostname;
  return url.port === '' ? host : `${host}%3A${url.port}`;
}

function normalizeBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    invalid(`API_BASE_URL: must be an absolute http(s) URL (got "${value.slice(0, 80)}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') invalid('API_BASE_URL: must use http or https');
  if (url.username || url.password || url.search || url.hash)
    invalid('API_BASE_URL: must not carry credentials, a query or a fragment');
  return url.href.replace(/\/+$/, '');
}

// did:web §3.1: a host with an optional percent-encoded port. No ":"-separated path: the issuer
// serves its document at /.well-known/did.json, where did:web looks only for a DID without one.
const DID_DOMAIN_SYNTAX = /^[A-Za-z0-9.-]+(?:%3A\d{1,5})?$/;
/** An IPv4 literal host (the syntax above admits no IPv6 literal). */
const IP_HOST = /^[\d.]+(?:%3A|$)/;

export interface BaseUrl {
  apiBaseUrl: string;
  /** True when API_BASE_URL was not set and derives from HOST/PORT. */
  apiBaseUrlDerived: boolean;
}

/** API_BASE_URL, or one derived from HOST and PORT outside production. */
export function resolveBaseUrl(e: ParsedEnv, production: boolean): BaseUrl {
  const apiBaseUrlDerived = e.API_BASE_URL === undefined;
  if (apiBaseUrlDerived && production)
    throw new ConfigError('CONFIG_MISSING', 'API_BASE_URL: required in production (the public URL of this issuer)');
  const apiBaseUrl = e.API_BASE_URL === undefined ? baseUrlFor(e.HOST, e.PORT) : normalizeBaseUrl(e.API_BASE_URL);
  if (production && new URL(apiBaseUrl).protocol !== 'https:' && !isLoopbackUrl(apiBaseUrl))
    invalid('API_BASE_URL: must be https in production');
  return { apiBaseUrl, apiBaseUrlDerived };
}

export interface DidDomain {
  /** Undefined with DID_METHOD=key. */
  didDomain: string | undefined;
  /** True when DID_DOMAIN was not set and derives from API_BASE_URL. */
  didDomainDerived: boolean;
}

/** DID_DOMAIN for DID_METHOD=web (derived from API_BASE_URL outside production). */
export function resolveDidDomain(e: ParsedEnv, apiBaseUrl: string, production: boolean, warnings: string[]): DidDomain {
  const didDomainDerived = e.DID_METHOD === 'web' && e.DID_DOMAIN === undefined;
  if (e.DID_METHOD !== 'web') {
    if (e.DID_DOMAIN !== undefined) warnings.push('DID_DOMAIN is ignored with DID_METHOD=key');
    return { didDomain: undefined, didDomainDerived };
  }
  if (e.DID_DOMAIN === undefined && production)
    throw new ConfigError('CONFIG_MISSING', 'DID_DOMAIN: required with DID_METHOD=web in production');
  const didDomain = e.DID_DOMAIN ?? didDomainFor(apiBaseUrl);
  if (!DID_DOMAIN_SYNTAX.test(didDomain))
    invalid(
      `DID_DOMAIN: must be a host with an optional %3A-encoded port and no path, e.g. issuer.example.com or 127.0.0.1%3A8787`,
    );
  // did:web §3.1: the identifier "MUST NOT include IP addresses". Development's loopback default is the exception.
  if (production && IP_HOST.test(didDomain))
    invalid('DID_DOMAIN: must be a DNS name in production (did:web: the identifier must not include IP addresses)');
  return { didDomain, didDomainDerived };
}

/**
 * SERVICE_DATABASE_URL with SERVICE_STORAGE_ADAPTER=postgres: required, a postgres:// URL. The
 * value is never quoted in a message (it usually carries the database password).
 */
export function resolveDatabaseUrl(e: ParsedEnv, warnings: string[]): string | undefined {
  const url = e.SERVICE_DATABASE_URL;
  if (e.SERVICE_STORAGE_ADAPTER !== 'postgres') {
    if (url !== undefined)
      warnings.push('SERVICE_DATABASE_URL is set but not used: SERVICE_STORAGE_ADAPTER is "sqlite"');
    return undefined;
  }
  if (url === undefined) {
    throw new ConfigError(
      'CONFIG_MISSING',
      'SERVICE_DATABASE_URL: required when SERVICE_STORAGE_ADAPTER=postgres (postgres://user:password@host:5432/database)',
    );
  }
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    invalid('SERVICE_DATABASE_URL: must be a URL like postgres://user:password@host:5432/database');
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    invalid('SERVICE_DATABASE_URL: must be a postgres:// or postgresql:// URL');
  return url;
}

/**
 * SERVICE_REDIS_URL, required by (and only used with) SERVICE_CACHE_ADAPTER=redis: a redis:// or
 * rediss:// URL with a host (ioredis' syntax: `redis://[user:password@]host[:port][/db]`).
 */
export function resolveRedisUrl(e: ParsedEnv, warnings: string[]): string | undefined {
  const value = e.SERVICE_REDIS_URL;
  if (e.SERVICE_CACHE_ADAPTER !== 'redis') {
    if (value !== undefined) warnings.push('SERVICE_REDIS_URL is set but not used: SERVICE_CACHE_ADAPTER is "memory"');
    return undefined;
  }
  if (value === undefined) invalid('SERVICE_REDIS_URL: required when SERVICE_CACHE_ADAPTER=redis');
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // The value may carry a password: never echo it.
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '')
    invalid('SERVICE_REDIS_URL: must be a redis:// or rediss:// URL with a host (redis://host:6379)');
  if (!/^\/?(\d{1,2})?$/.test(url.pathname)) invalid('SERVICE_REDIS_URL: the path may only name a database number');
  return value;
}

/**
 * The configuration once the real port is known: with `port: 0` the OS picks one, and the
 * derived API_BASE_URL / DID_DOMAIN must name it (status list URLs and the did:web are built on them).
 */
export function withBoundPort(config: IssuerConfig, port: number): IssuerConfig {
  const apiBaseUrl = config.apiBaseUrlDerived ? baseUrlFor(config.host, port) : config.apiBaseUrl;
  const didDomain = config.didMethod === 'web' && config.didDomainDerived ? didDomainFor(apiBaseUrl) : config.didDomain;
  return { ...config, port, apiBaseUrl, didDomain };
}

/**
 * What this issuer may fetch when a request names the URL (did:web documents, status lists):
 * public https only, unless SERVICE_FETCH_PRIVATE_NETWORK says otherwise. Outside production an
 * issuer on loopback may also read plain http from loopback (development, tests). In production
 * never by default, whatever API_BASE_URL is: an anonymous caller names the did:web, and could
 * otherwise reach every port of the machine. The issuer's own DIDs and lists are read in-process.
 */
export function fetchPolicy(config: Pick<IssuerConfig, 'apiBaseUrl' | 'nodeEnv' | 'fetchPrivateNetwork'>): UrlPolicy {
  if (config.fetchPrivateNetwork) return { allowHttpLoopback: true, allowPrivateNetwork: true };
  return {
    allowHttpLoopback: config.nodeEnv !== 'production' && isLoopbackUrl(config.apiBaseUrl),
    allowPrivateNetwork: false,
  };
}
