/**
 * DID management (`/v1/dids`): DIDs this issuer creates, hosts and retires.
 *
 * - Create: a new Ed25519 key held by the server (seed encrypted under the key-encryption key,
 *   AAD = the DID, in `agent_keys`), as `did:web:<DID_DOMAIN>:dids:<id>` (served at
 *   `/dids/<id>/did.json`, did:web §3.2) or as the key's did:key. With `publicKeyMultibase` the
 *   caller keeps its key and the issuer only hosts the did:web document.
 * - Register: an existing did:key (its document is derived from the DID, did:key §3.1.2), so
 *   this issuer can track and deactivate it in its own resolver.
 * - Services (DID Core §5.4) are added and removed on hosted did:web documents only: a did:key
 *   document is a pure function of the key and cannot carry them.
 * - Deactivate (DID Core §7.1.3): resolution keeps the document and says `deactivated: true`;
 *   every verification through this issuer then refuses with DID_DEACTIVATED.
 *
 * Every change is one transaction with its audit record.
 */
import { encrypt } from '../../wallet/crypto/aead.ts';
import { bytesToBase64url } from '../../wallet/crypto/base64url.ts';
import { utf8ToBytes } from '../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey } from '../../wallet/crypto/ed25519.ts';
import { randomBytes } from '../../wallet/crypto/bytes.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import type { JsonObject } from '../../wallet/crypto/json-value.ts';
import { didKeyDocument, didKeyFromPublicKey, publicKeyFromDidKey } from '../../wallet/did/key.ts';
import { parseDid } from '../../wallet/did/parse.ts';
import { didWebToUrl } from '../../wallet/did/web.ts';
import { ed25519KeyFromMultibase } from '../../wallet/did/public-key.ts';
import type { DidDocument, DidResolutionResult, Service, ServiceEndpoint } from '../../wallet/did/types.ts';
import type { DidResolution, HostedDid } from '../../wallet/contract/dids.ts';
import type { IssuerDeps } from '../deps.ts';
import type { IssuerStores } from '../storage/stores.ts';
import { wireObject } from './wire.ts';
import { invalidCursor, refuse } from '../refusal.ts';
import type { HostedDidKind, HostedDidRecord } from '../storage/dids-store.ts';
import { multikeyDidDocument } from './did-documents.ts';
import { hostedResolution } from './resolver.ts';

/** What changing a hosted DID document uses of the issuer's dependencies. */
export type DidEditDeps = Pick<IssuerDeps, 'config' | 'stores' | 'audit' | 'now'>;

/** DID Resolution §7.1 result context. */
export const DID_RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1';
/** A real document has a handful of services; the cap keeps documents well under the body limit. */
export const MAX_SERVICES = 32;
/** did:web path segment of managed DIDs: `did:web:<domain>:dids:<id>` ↔ `/dids/<id>/did.json`. */
export const MANAGED_DID_SEGMENT = 'dids';

export interface CreateDidInput {
  /** Default: DID_METHOD. `web` needs DID_METHOD=web (a domain to host on). */
  method?: 'web' | 'key';
  /** did:web only: the last path segment (default: a random id). */
  name?: string;
  /** Host a document for this caller-held key instead of generating one. */
  publicKeyMultibase?: string;
  /** Register an existing did:key instead of creating one. */
  did?: string;
  services?: ServiceInput[];
}

export interface ServiceInput {
  /** A fragment ("files", "#files") or a full DID URL of this DID; default a random fragment. */
  id?: string;
  type: string;
  serviceEndpoint: ServiceEndpoint | ServiceEndpoint[];
}

/** docs/api.md `HostedDid`: the wire view of a hosted DID (wallet/contract/dids.ts). */
export type DidView = HostedDid;

const NAME = /^[A-Za-z0-9._~-]{1,64}$/;
const FRAGMENT = /^[A-Za-z0-9._~-]{1,64}$/;

/** `stores`: the caller's transaction when it is in one. */
async function view(stores: Pick<IssuerStores, 'agents'>, record: HostedDidRecord): Promise<DidView> {
  return {
    did: record.did,
    kind: record.kind,
    serverHeldKey: (await stores.agents.getKey(record.did)) !== undefined,
    deactivated: record.deactivated,
    didDocument: wireObject(record.document),
    created: new Date(record.createdAt).toISOString(),
    updated: new Date(record.updatedAt).toISOString(),
  };
}

/** Parses a DID (not a DID URL) from a path or body; 400 INVALID_DID otherwise. */
export function requireDid(value: string): string {
  let parsed;
  try {
    parsed = parseDid(value);
  } catch {
    throw refuse('INVALID_DID', 'not a DID: expected did:<method>:<method-specific-id> (DID Core §3.1)');
  }
  if (parsed.did !== value) throw refuse('INVALID_DID', 'expected a DID without path, query or fragment');
  return parsed.did;
}

/**
 * `requireDid`, and for the methods every verifier knows, a DID that names something: a did:key
 * must decode to an Ed25519 key (did:key §3.1), a did:web's host and path must make a URL
 * (did:web §3.2; any host, since it may be this issuer's own). A credential signed for any
 * other would name a subject no verifier can resolve. 400 INVALID_DID.
 */
export function requireUsableDid(value: string): string {
  const did = requireDid(value);
  try {
    if (did.startsWith('did:key:')) publicKeyFromDidKey(did);
    else if (did.startsWith('did:web:')) didWebToUrl(did, { allowHttpLoopback: true, allowPrivateNetwork: true });
  } catch (error) {
    throw refuse('INVALID_DID', `${did.slice(0, 200)} cannot be resolved: ${(error as Error).message}`);
  }
  return did;
}

async function hostedOrThrow(stores: Pick<IssuerStores, 'dids'>, did: string): Promise<HostedDidRecord> {
  const record = await stores.dids.get(requireDid(did));
  if (!record) throw refuse('DID_NOT_FOUND', `${did} is not hosted by this issuer`);
  return record;
}

function serviceId(did: string, id: string | undefined): string {
  if (id === undefined) return `${did}#service-${bytesToBase64url(randomBytes(6))}`;
  const fragment = id.startsWith(`${did}#`) ? id.slice(did.length + 1) : id.startsWith('#') ? id.slice(1) : id;
  if (!FRAGMENT.test(fragment))
    throw refuse('VALIDATION_FAILED', 'service id must be a fragment of letters, digits and . _ ~ - (at most 64)');
  return `${did}#${fragment}`;
}

function withServices(did: string, document: DidDocument, inputs: readonly ServiceInput[]): DidDocument {
  const services: Service[] = [...(document.service ?? [])];
  for (const input of inputs) {
    const id = serviceId(did, input.id);
    if (services.some((s) => s.id === id || `${did}${s.id}` === id))
      throw refuse('SERVICE_EXISTS', `the DID document already has a service ${id}`);
    services.push({ id, type: input.type, serviceEndpoint: input.serviceEndpoint });
  }
  if (services.length > MAX_SERVICES)
    throw refuse('VALIDATION_FAILED', `a DID document holds at most ${MAX_SERVICES} services`);
  return { ...document, service: services };
}

function servicesRefusedOnDidKey(did: string): void {
  if (did.startsWith('did:key:')) {
    throw refuse(
      'DID_KEY_SERVICES_UNSUPPORTED',
      'a did:key document is derived from the key alone (did:key §3.1.2) and cannot express services; use a did:web',
    );
  }
}

/** Only documents this issuer serves can change: its own did:web tree (did:key has none to change). */
function assertMutable(deps: Pick<IssuerDeps, 'config'>, record: HostedDidRecord): void {
  servicesRefusedOnDidKey(record.did);
  if (record.kind === 'issuer') {
    // Start-up rewrites the issuer's document from its signing key (issuer-identity.ts), which would drop edits.
    throw refuse('ISSUER_DID_PROTECTED', "the issuer's own DID document is managed by its configuration");
  }
  if (record.deactivated) throw refuse('DID_DEACTIVATED', `${record.did} is deactivated`);
  if (deps.config.didMethod !== 'web' || !record.did.startsWith(`did:web:${deps.config.didDomain ?? ''}:`)) {
    throw refuse('DID_NOT_HOSTED', `${record.did} is not served by this issuer`);
  }
}

async function serverKey(
  deps: Pick<IssuerDeps, 'keyEncryptionKey' | 'now'>,
  did: string,
  verificationMethod: string,
  seed: Uint8Array,
): Promise<Parameters<IssuerDeps['stores']['agents']['insertKey']>[0]> {
  return {
    did,
    verificationMethod,
    publicKeyMultibase: encodePublicKeyMultibase(getPublicKey(seed)),
    envelope: await encrypt(deps.keyEncryptionKey, seed, utf8ToBytes(did)),
    createdAt: deps.now(),
  };
}

function insertHosted(
  deps: Pick<IssuerDeps, 'stores' | 'audit'>,
  record: HostedDidRecord,
  actor: string,
  event: string,
  data: JsonObject,
  key?: Parameters<IssuerDeps['stores']['agents']['insertKey']>[0],
): Promise<DidView> {
  return deps.stores.transaction(async (tx) => {
    if (await tx.dids.get(record.did)) throw refuse('DID_EXISTS', `${record.did} already exists on this issuer`);
    await tx.dids.insert(record);
    if (key) await tx.agents.insertKey(key);
    await deps.audit.record({ event, actor, data: { did: record.did, ...data } }, tx);
    return view(tx, record);
  });
}

/** POST /v1/dids: create (server-held or caller-held key) or register an existing did:key. */
export async function createDid(
  deps: Pick<IssuerDeps, 'config' | 'stores' | 'keyEncryptionKey' | 'audit' | 'now'>,
  input: CreateDidInput,
  actor: string,
): Promise<DidView> {
  const at = deps.now();
  const services = input.services ?? [];
  if (input.did !== undefined) {
    if (input.publicKeyMultibase !== undefined || input.name !== undefined) {
      throw refuse(
        'VALIDATION_FAILED',
        '"did" registers an existing DID and cannot be combined with "publicKeyMultibase" or "name"',
      );
    }
    const did = requireDid(input.did);
    if (!did.startsWith('did:key:')) {
      throw refuse(
        'DID_METHOD_UNSUPPORTED',
        'only a did:key can be registered; a did:web is hosted where its domain points',
      );
    }
    if (services.length > 0) servicesRefusedOnDidKey(did);
    let document: DidDocument;
    try {
      document = didKeyDocument(did);
    } catch (error) {
      throw refuse('INVALID_DID', `not a usable Ed25519 did:key: ${(error as Error).message}`);
    }
    return insertHosted(
      deps,
      { did, document, kind: 'registered', deactivated: false, createdAt: at, updatedAt: at },
      actor,
      'DID_REGISTERED',
      { method: 'key' },
    );
  }

  const method = input.method ?? deps.config.didMethod;
  if (method === 'web' && (deps.config.didMethod !== 'web' || deps.config.didDomain === undefined)) {
    throw refuse('DID_METHOD_UNSUPPORTED', 'did:web DIDs need DID_METHOD=web (a domain to host them on)');
  }
  if (method === 'key' && input.name !== undefined) throw refuse('VALIDATION_FAILED', '"name" applies to did:web only');
  if (input.name !== undefined && !NAME.test(input.name)) {
    throw refuse('VALIDATION_FAILED', 'name must be 1–64 letters, digits or . _ ~ - (a did:web path segment)');
  }

  let publicKey: Uint8Array;
  let seed: Uint8Array | undefined;
  if (input.publicKeyMultibase !== undefined) {
    try {
      publicKey = ed25519KeyFromMultibase(input.publicKeyMultibase);
    } catch (error) {
      throw refuse('VALIDATION_FAILED', `publicKeyMultibase: ${(error as Error).message}`);
    }
  } else {
    seed = generateSeed();
    publicKey = getPublicKey(seed);
  }
  try {
    const did =
      method === 'key'
        ? didKeyFromPublicKey(publicKey)
        : `did:web:${deps.config.didDomain}:${MANAGED_DID_SEGMENT}:${input.name ?? crypto.randomUUID()}`;
    if (method === 'key' && services.length > 0) servicesRefusedOnDidKey(did);
    const verificationMethod = method === 'key' ? `${did}#${did.slice('did:key:'.length)}` : `${did}#key-1`;
    const document = withServices(did, multikeyDidDocument(did, verificationMethod, publicKey), services);
    const kind: HostedDidKind = seed === undefined ? 'registered' : 'managed';
    const key = seed === undefined ? undefined : await serverKey(deps, did, verificationMethod, seed);
    return insertHosted(
      deps,
      { did, document, kind, deactivated: false, createdAt: at, updatedAt: at },
      actor,
      'DID_CREATED',
      { method, kind },
      key,
    );
  } finally {
    seed?.fill(0);
  }
}

/** The did:web document served for `did` (did:web §3.2 Read); none once it is deactivated (§3.4 Deactivate). */
export async function servedDidDocument(deps: Pick<IssuerDeps, 'stores'>, did: string): Promise<JsonObject> {
  const record = await deps.stores.dids.get(did);
  if (!record) throw refuse('DID_NOT_FOUND', `${did} is not hosted here`);
  if (record.deactivated) throw refuse('DID_DEACTIVATED', `${did} is deactivated`);
  return wireObject(record.document);
}

/** GET /v1/dids/:did — a DID Resolution result (DID Core §7.1) for a hosted DID or any did:key. */
export async function resolveHostedDid(deps: Pick<IssuerDeps, 'stores'>, did: string): Promise<DidResolution> {
  const checked = requireDid(did);
  const record = await deps.stores.dids.get(checked);
  if (record) return resolutionBody(hostedResolution(record));
  if (checked.startsWith('did:key:')) {
    try {
      publicKeyFromDidKey(checked);
      return resolutionBody({
        didDocument: didKeyDocument(checked),
        didDocumentMetadata: {},
        didResolutionMetadata: { contentType: 'application/did+json' },
      });
    } catch (error) {
      throw refuse('INVALID_DID', `not a usable Ed25519 did:key: ${(error as Error).message}`);
    }
  }
  // Not an open resolver: resolving arbitrary did:web hosts on request would make this a fetch proxy.
  throw refuse('DID_NOT_FOUND', `${checked} is not hosted by this issuer`, {
    details: { didResolutionMetadata: { error: 'notFound' } },
  });
}

/** DID Core §7.1: a resolution result as the API answers it, with the DID Resolution context. */
function resolutionBody(result: DidResolutionResult): DidResolution {
  return {
    '@context': DID_RESOLUTION_CONTEXT,
    didDocument: result.didDocument === null ? null : wireObject(result.didDocument),
    didDocumentMetadata: wireObject(result.didDocumentMetadata),
    didResolutionMetadata: wireObject(result.didResolutionMetadata),
  };
}

/** The hosted document of a managed did:web, by its path id (`/dids/<id>/did.json`). */
export async function managedWebDocument(
  deps: Pick<IssuerDeps, 'config' | 'stores'>,
  id: string,
): Promise<DidDocument> {
  if (deps.config.didMethod !== 'web' || !NAME.test(id)) throw refuse('DID_NOT_FOUND', 'no such DID document');
  const record = await deps.stores.dids.get(`did:web:${deps.config.didDomain}:${MANAGED_DID_SEGMENT}:${id}`);
  if (!record) throw refuse('DID_NOT_FOUND', 'no such DID document');
  // did:web §3.2.4 Deactivate: the document is no longer served.
  if (record.deactivated) throw refuse('DID_DEACTIVATED', 'this DID has been deactivated');
  return record.document;
}

/** GET /v1/dids (admin): hosted DIDs, oldest first. */
export async function listDids(
  deps: Pick<IssuerDeps, 'stores'>,
  page: { kind?: HostedDidKind; cursor?: string; limit: number },
): Promise<{ dids: DidView[]; nextCursor?: string }> {
  const records = await deps.stores.dids.list({ ...page, limit: page.limit + 1 });
  if (records === undefined) throw invalidCursor();
  const dids = await Promise.all(records.slice(0, page.limit).map((record) => view(deps.stores, record)));
  const last = dids[dids.length - 1];
  return records.length > page.limit && last ? { dids, nextCursor: last.did } : { dids };
}

/** POST /v1/dids/:did/services */
export function addService(deps: DidEditDeps, did: string, input: ServiceInput, actor: string): Promise<DidView> {
  return deps.stores.transaction(async (tx) => {
    const record = await hostedOrThrow(tx, did);
    assertMutable(deps, record);
    const document = withServices(record.did, record.document, [input]);
    const at = deps.now();
    await tx.dids.updateDocument(record.did, document, at);
    const added = document.service?.[document.service.length - 1]?.id ?? '';
    await deps.audit.record({ event: 'DID_SERVICE_ADDED', actor, data: { did: record.did, serviceId: added } }, tx);
    return view(tx, { ...record, document, updatedAt: at });
  });
}

/** DELETE /v1/dids/:did/services/:endpointId */
export function removeService(deps: DidEditDeps, did: string, endpointId: string, actor: string): Promise<DidView> {
  return deps.stores.transaction(async (tx) => {
    const record = await hostedOrThrow(tx, did);
    assertMutable(deps, record);
    const id = serviceId(record.did, endpointId);
    const services = record.document.service ?? [];
    const kept = services.filter((s) => s.id !== id && `${record.did}${s.id}` !== id);
    if (kept.length === services.length) throw refuse('SERVICE_NOT_FOUND', `the DID document has no service ${id}`);
    const { service: _service, ...rest } = record.document;
    const document: DidDocument = kept.length > 0 ? { ...rest, service: kept } : rest;
    const at = deps.now();
    await tx.dids.updateDocument(record.did, document, at);
    await deps.audit.record({ event: 'DID_SERVICE_REMOVED', actor, data: { did: record.did, serviceId: id } }, tx);
    return view(tx, { ...record, document, updatedAt: at });
  });
}

/** POST /v1/dids/:did/deactivate */
export function deactivateDid(
  deps: Pick<IssuerDeps, 'stores' | 'resolver' | 'audit' | 'now'>,
  did: string,
  actor: string,
  reason?: string,
): Promise<DidView> {
  return deps.stores.transaction(async (tx) => {
    const record = await hostedOrThrow(tx, did);
    if (record.kind === 'issuer')
      throw refuse('ISSUER_DID_PROTECTED', "the issuer's own DID cannot be deactivated through the API");
    const at = deps.now();
    if (!(await tx.dids.deactivate(record.did, at)))
      throw refuse('DID_DEACTIVATED', `${record.did} is already deactivated`);
    await deps.audit.record(
      {
        event: 'DID_DEACTIVATED',
        actor,
        ...(record.kind === 'agent' ? { agentDid: record.did } : {}),
        ...(reason ? { reason } : {}),
        data: { did: record.did, kind: record.kind },
      },
      tx,
    );
    deps.resolver.invalidate(record.did);
    return view(tx, { ...record, deactivated: true, updatedAt: at });
  });
}
