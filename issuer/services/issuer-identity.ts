/**
 * The issuer's own identity: `did:web:<DID_DOMAIN>` with verification method `#key-1`
 * (DID_METHOD=web), or the did:key of its signing key (DID_METHOD=key), signing with
 * SERVICE_SIGNING_KEY. Its document is kept in `hosted_dids` and served at
 * /.well-known/did.json (did:web §3.2: a bare domain resolves there).
 */
import { getPublicKey, seedSigner } from '../../wallet/crypto/ed25519.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import type { IssuerConfig } from '../config.ts';
import type { IssuerContext } from '../context.ts';
import { multikeyDidDocument } from './did-documents.ts';

const ISSUER_DID_SETTING = 'issuer.did';

export function issuerIdentity(config: Pick<IssuerConfig, 'didMethod' | 'didDomain' | 'signingKey'>): SigningIdentity {
  const signer = seedSigner(config.signingKey);
  if (config.didMethod === 'key') return didKeyIdentity(signer);
  const did = `did:web:${config.didDomain ?? ''}`;
  return { did, verificationMethod: `${did}#key-1`, signer };
}

/**
 * Stores (or refreshes, after a key or domain change) the issuer's DID document. A change of
 * issuer DID is logged and audited: credentials issued under the old DID stay resolvable here
 * but verifiers that trust only the new DID will refuse them.
 */
export function ensureIssuerDocument(ctx: IssuerContext): void {
  const { did, verificationMethod } = ctx.issuer;
  const document = multikeyDidDocument(did, verificationMethod, getPublicKey(ctx.config.signingKey));
  const at = ctx.now();
  ctx.db.transaction(() => {
    const previousDid = ctx.stores.settings.get(ISSUER_DID_SETTING);
    const existing = ctx.stores.dids.get(did);
    if (!existing) {
      ctx.stores.dids.insert({ did, document, kind: 'issuer', deactivated: false, createdAt: at, updatedAt: at });
    } else if (JSON.stringify(existing.document) !== JSON.stringify(document)) {
      ctx.stores.dids.updateDocument(did, document, at);
      ctx.audit.record({ event: 'ISSUER_KEY_CHANGED', actor: 'system', data: { did } });
      ctx.log.warn('the issuer signing key changed: credentials signed with the previous key no longer verify', { did });
    }
    if (previousDid !== did) {
      ctx.stores.settings.set(ISSUER_DID_SETTING, did);
      ctx.audit.record({ event: 'ISSUER_DID_SET', actor: 'system', data: { did, previousDid: previousDid ?? null } });
      if (previousDid !== undefined) ctx.log.warn('the issuer DID changed', { did, previousDid });
    }
  });
}
