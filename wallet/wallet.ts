/**
 * `Wallet`: an agent's side of Mandate in one object — its key (in an injected KeyStore:
 * IndexedDB in browsers, files in Node, memory in tests), its DID (did:key of that key by
 * default), its credentials (in an injected CredentialStore beside the keys), and what it does
 * with them: present a chain to a service, delegate a narrower slice of its authority, or (for
 * development) issue itself a root. The private key never leaves the key store: the wallet holds
 * a Signer. Onboarding with an issuer is `IssuerClient.onboard(token, {custody: 'self', wallet})`.
 */
import { MandateError, isMandateError } from './crypto/errors.ts';
import { encodePublicKeyMultibase } from './crypto/multikey.ts';
import { didKeyFromPublicKey } from './did/key.ts';
import { isDid } from './did/parse.ts';
import type { KeyStore } from './keystore/types.ts';
import { issueAgentCredential } from './vc/agent-credential.ts';
import { delegate as signDelegation } from './vc/delegation.ts';
import { didKeyIdentity, type SigningIdentity } from './vc/identity.ts';
import { credentialKind } from './vc/parse.ts';
import { MAX_PRESENTATION_LIFETIME_MS, signPresentation } from './vc/presentation.ts';
import { parseScopes } from './vc/scopes.ts';
import type {
  AgentCredential,
  ChainCredential,
  DelegatedAgentCredential,
  MandateCredential,
  VerifiablePresentation,
} from './vc/types.ts';
import { buildChain, selectionsFor, type Selection } from './client/select.ts';
import type { CredentialStore } from './client/credential-store.ts';

export type WalletErrorCode =
  /** No stored chain covers the requested target and scopes (or can be delegated from). */
  | 'NO_MATCHING_CREDENTIAL'
  /** Options that cannot work: a DID that is not the key's, an empty target or challenge, bad lifetimes. */
  | 'WALLET_OPTIONS_INVALID';

export class WalletError extends MandateError<WalletErrorCode> {
  override name = 'WalletError';
}

export interface WalletOptions {
  keyStore: KeyStore;
  credentialStore: CredentialStore;
  /** The key's id in the store (default "agent"). */
  keyId?: string;
  /** Generate the key when the store has none under `keyId` (default true). */
  createKey?: boolean;
  /**
   * A DID the key belongs to (e.g. a did:web whose document lists it), with the key's DID URL.
   * Default: the did:key of the key, verification method `did:key:z…#z…` (did:key §3.1.2).
   */
  did?: string;
  verificationMethod?: string;
}

export interface SelectCredentialsOptions {
  /** The target service: the proof's domain; it must be in the leaf's domains when it has any. */
  target: string;
  /** Scopes the presentation must cover (default: none, any chain for the target). */
  scopes?: readonly string[];
  /** Only chains whose root is issued by one of these DIDs (default: any). */
  trustedIssuers?: readonly string[];
  /** Include grants from these providers (default: the target's own, see docs/wallet.md). */
  grantIssuers?: readonly string[];
  now?: Date;
}

export interface PresentOptions extends SelectCredentialsOptions {
  /** The verifier's nonce. */
  challenge: string;
  /** Lifetime of the presentation (default 5 minutes, at most 1 hour: verifiers refuse longer ones by default). */
  lifetimeMs?: number;
}

export interface WalletDelegateOptions {
  /** The delegatee's DID. */
  to: string;
  scopes: readonly string[];
  /** Lifetime from now; default: the parent's validUntil. At most the parent's. */
  lifetimeSeconds?: number;
  /** Default: one less than the parent's. */
  delegationDepth?: number;
  /** Required when the parent is limited to domains; default the parent's. */
  domains?: readonly string[];
  /** Delegate from this stored credential (default: the best chain covering `scopes`). */
  parentId?: string;
  now?: Date;
}

export interface DelegationResult {
  credential: DelegatedAgentCredential;
  /** What the delegatee stores (`wallet.addCredentials(chain)`): the new credential, then its parents to the root. */
  chain: ChainCredential[];
}

export interface SelfIssueOptions {
  privilegeScopes: readonly string[];
  /** Default 0: no further delegation. */
  delegationDepth?: number;
  domains?: readonly string[];
  /** Default: unbounded. */
  lifetimeSeconds?: number;
  now?: Date;
}

function optionsInvalid(message: string): WalletError {
  return new WalletError('WALLET_OPTIONS_INVALID', message);
}

function requireText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 1024)
    throw optionsInvalid(`${name} must be a string of 1 to 1024 characters`);
  return value;
}

function lifetime(seconds: number | undefined, now: number): Date | undefined {
  if (seconds === undefined) return undefined;
  if (!Number.isSafeInteger(seconds) || seconds < 1) throw optionsInvalid('lifetimeSeconds must be a positive integer');
  return new Date(now + seconds * 1000);
}

export class Wallet {
  readonly #identity: SigningIdentity;
  readonly #credentials: CredentialStore;
  readonly keyId: string;

  private constructor(identity: SigningIdentity, credentials: CredentialStore, keyId: string) {
    this.#identity = Object.freeze({ ...identity });
    this.#credentials = credentials;
    this.keyId = keyId;
  }

  /**
   * Opens the wallet of `options.keyId` in `options.keyStore`, creating the key on first use.
   * A wallet reopened on the same stores (a restart, a page reload) has the same DID and
   * credentials. KEY_NOT_FOUND (KeyStoreError) with `createKey: false` and no key.
   */
  static async open(options: WalletOptions): Promise<Wallet> {
    const keyId = options.keyId ?? 'agent';
    const { keyStore } = options;
    if (options.createKey !== false && (await keyStore.get(keyId)) === undefined) {
      try {
        await keyStore.generate(keyId);
      } catch (error) {
        // Another tab or process created it first: use theirs.
        if (!isMandateError(error, 'KEY_EXISTS')) throw error;
      }
    }
    const signer = await keyStore.signer(keyId);
    let identity: SigningIdentity;
    if (options.did === undefined && options.verificationMethod === undefined) {
      identity = didKeyIdentity(signer);
    } else {
      const did = requireText(options.did, 'did');
      const verificationMethod = requireText(options.verificationMethod, 'verificationMethod');
      if (!isDid(did) || !verificationMethod.startsWith(`${did}#`)) {
        throw optionsInvalid('did must be a DID and verificationMethod a DID URL of it (did#fragment)');
      }
      if (did.startsWith('did:key:') && did !== didKeyFromPublicKey(signer.publicKey))
        throw optionsInvalid(`${did} is not the did:key of key "${keyId}"`);
      identity = { did, verificationMethod, signer };
    }
    return new Wallet(identity, options.credentialStore, keyId);
  }

  get did(): string {
    return this.#identity.did;
  }

  get verificationMethod(): string {
    return this.#identity.verificationMethod;
  }

  /** The key as a Multikey ("z6Mk…"). */
  get publicKeyMultibase(): string {
    return encodePublicKeyMultibase(this.#identity.signer.publicKey);
  }

  /** Who signs for this wallet: DID, key id, Signer (the private key stays in the key store). */
  get identity(): SigningIdentity {
    return this.#identity;
  }

  /** Validates and stores a credential (CREDENTIAL_INVALID, CREDENTIAL_CONFLICT from the store). */
  async addCredential(credential: unknown): Promise<MandateCredential> {
    await this.#credentials.put(credential as MandateCredential);
    return (await this.#credentials.get((credential as { id: string }).id)) as MandateCredential;
  }

  /** Stores several credentials, e.g. the chain a delegator handed over. */
  async addCredentials(credentials: readonly unknown[]): Promise<MandateCredential[]> {
    const stored: MandateCredential[] = [];
    for (const credential of credentials) stored.push(await this.addCredential(credential));
    return stored;
  }

  /** Every stored credential (this wallet's, their parents, grants), ordered by id. */
  credentials(): Promise<MandateCredential[]> {
    return this.#credentials.list();
  }

  removeCredential(id: string): Promise<boolean> {
    return this.#credentials.delete(id);
  }

  /**
   * The chain and grants `present` would sign for these options (docs/wallet.md §Choosing
   * credentials). NO_MATCHING_CREDENTIAL when no stored chain qualifies.
   */
  async select(options: SelectCredentialsOptions): Promise<Selection> {
    const target = requireText(options.target, 'target');
    const scopes = options.scopes === undefined ? undefined : parseScopes(options.scopes);
    const [best] = selectionsFor(await this.#credentials.list(), {
      holder: this.did,
      target,
      scopes,
      trustedIssuers: options.trustedIssuers,
      grantIssuers: options.grantIssuers,
      now: options.now?.getTime(),
    });
    if (!best) {
      throw new WalletError(
        'NO_MATCHING_CREDENTIAL',
        `no stored credential chain of ${this.did} is valid for ${target}${scopes?.length ? ` and covers ${scopes.join(', ')}` : ''}`,
      );
    }
    return best;
  }

  /** Signs a presentation of the best chain for `target` and `scopes`, bound to `challenge`. */
  async present(options: PresentOptions): Promise<VerifiablePresentation> {
    const challenge = requireText(options.challenge, 'challenge');
    const lifetime = options.lifetimeMs;
    if (
      lifetime !== undefined &&
      (!Number.isSafeInteger(lifetime) || lifetime < 1000 || lifetime > MAX_PRESENTATION_LIFETIME_MS)
    ) {
      // Verifiers refuse a longer presentation by default (maxPresentationLifetimeMs).
      throw optionsInvalid(`lifetimeMs must be an integer from 1000 to ${MAX_PRESENTATION_LIFETIME_MS}`);
    }
    const { chain, grants } = await this.select(options);
    return signPresentation({
      holder: this.#identity,
      credentials: [...chain, ...grants],
      challenge,
      domain: options.target,
      ...(options.now === undefined ? {} : { created: options.now }),
      ...(options.lifetimeMs === undefined ? {} : { lifetimeMs: options.lifetimeMs }),
    });
  }

  /**
   * Self-custody delegation: signs, with this wallet's key, a DelegatedAgentCredential giving
   * `to` a narrower slice of a stored chain's authority. The verifier's narrowing rules are
   * checked before signing (SCOPE_ESCALATION, DEPTH_EXCEEDED, DOMAIN_ESCALATION, CHAIN_BROKEN).
   */
  async delegate(options: WalletDelegateOptions): Promise<DelegationResult> {
    const to = requireText(options.to, 'to');
    const scopes = parseScopes(options.scopes);
    const now = options.now?.getTime() ?? Date.now();
    const validUntil = lifetime(options.lifetimeSeconds, now);
    const credentials = await this.#credentials.list();
    let parentChain: ChainCredential[] | undefined;
    if (options.parentId !== undefined) {
      const parent = credentials.find((c) => c.id === options.parentId);
      if (
        parent &&
        credentialKind(parent) !== 'DelegationGrantCredential' &&
        parent.credentialSubject.id === this.did
      ) {
        parentChain = buildChain(parent as ChainCredential, new Map(credentials.map((c) => [c.id, c])));
      }
    } else {
      parentChain = selectionsFor(credentials, {
        holder: this.did,
        scopes,
        domains: options.domains,
        minDelegationDepth: (options.delegationDepth ?? 0) + 1,
        now,
      })[0]?.chain;
    }
    if (!parentChain) {
      throw new WalletError(
        'NO_MATCHING_CREDENTIAL',
        `no stored credential chain of ${this.did} can delegate ${scopes.join(', ')}${options.parentId ? ` from ${options.parentId}` : ''}`,
      );
    }
    const credential = await signDelegation(parentChain[0] as ChainCredential, {
      delegator: this.#identity,
      delegateeDid: to,
      scopes,
      validFrom: new Date(now),
      ...(validUntil === undefined ? {} : { validUntil }),
      ...(options.delegationDepth === undefined ? {} : { delegationDepth: options.delegationDepth }),
      ...(options.domains === undefined ? {} : { domains: [...options.domains] }),
    });
    return { credential, chain: [credential, ...parentChain] };
  }

  /**
   * Development only: a root AgentCredential this wallet issues to itself, stored. Verifiers
   * accept it only with `allowSelfSigned` (otherwise UNTRUSTED_ISSUER).
   */
  async selfIssue(options: SelfIssueOptions): Promise<AgentCredential> {
    const now = options.now?.getTime() ?? Date.now();
    const validUntil = lifetime(options.lifetimeSeconds, now);
    const credential = await issueAgentCredential({
      issuer: this.#identity,
      agentDid: this.did,
      privilegeScopes: parseScopes(options.privilegeScopes),
      delegationDepth: options.delegationDepth ?? 0,
      validFrom: new Date(now),
      ...(validUntil === undefined ? {} : { validUntil }),
      ...(options.domains === undefined ? {} : { domains: [...options.domains] }),
    });
    await this.#credentials.put(credential);
    return credential;
  }
}
