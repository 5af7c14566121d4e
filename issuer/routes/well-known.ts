/**
 * Public documents (wallet/contract/documents.ts): the issuer's did:web document
 * (/.well-known/did.json, did:web §3.2), hosted agents' documents (/agents/:id/did.json, path
 * form `did:web:<domain>:agents:<id>`) and the Mandate JSON-LD context; and the liveness and
 * readiness probes (wallet/contract/health.ts).
 */
import type { Context } from 'hono';
import { DID_JSON, SIGNATURE_DIRECTORY_JSON, type documentEndpoints } from '../../wallet/contract/documents.ts';
import type { healthEndpoints } from '../../wallet/contract/health.ts';
import { MANDATE_CONTEXT } from '../../wallet/vc/context.ts';
import type { IssuerContext } from '../boot.ts';
import type { IssuerEnv } from '../http/env.ts';
import type { HandlersOf } from '../http/mount.ts';
import { refuse } from '../refusal.ts';
import { agentWebDid } from '../services/did-documents.ts';
import { servedDidDocument } from '../services/dids.ts';
import { createKeyDirectory, signatureAgentCard } from '../services/key-directory.ts';
import { checkReadiness } from '../services/readiness.ts';
import { wireObject } from '../services/wire.ts';

/**
 * How long a verifier may use a directory or a card without asking again (RFC 9111 §5.2.2.1):
 * a key removed from them (a revoked agent) keeps verifying at most this long. Under the
 * directory signatures' remaining lifetime (services/key-directory.ts DIRECTORY_RESIGN_MS).
 */
const DIRECTORY_MAX_AGE_SECONDS = 60;

export function documentHandlers(ctx: IssuerContext): HandlersOf<typeof documentEndpoints> {
  const keyDirectory = createKeyDirectory(ctx);
  const serveHosted = async (c: Context<IssuerEnv>, did: string) =>
    c.json(await servedDidDocument(ctx, did), 200, { 'content-type': DID_JSON, 'cache-control': 'no-cache' });
  return {
    issuerDidDocument: (_, c) => {
      if (ctx.config.didMethod !== 'web')
        throw refuse(
          'DID_NOT_FOUND',
          `this issuer is ${ctx.issuer.did} (DID_METHOD=key): there is no did:web document`,
        );
      return serveHosted(c, ctx.issuer.did);
    },
    agentDidDocument: ({ params }, c) => {
      if (ctx.config.didMethod !== 'web')
        throw refuse('DID_NOT_FOUND', 'DID_METHOD=key: agents have did:key identifiers, no hosted documents');
      return serveHosted(c, agentWebDid(ctx.config.didDomain ?? '', params.id));
    },
    signatureDirectory: async ({ query }, c) => {
      const page = await keyDirectory.answer(query.cursor);
      const headers: Record<string, string> = {
        ...page.headers,
        'content-type': SIGNATURE_DIRECTORY_JSON,
        'cache-control': `public, max-age=${DIRECTORY_MAX_AGE_SECONDS}`,
      };
      if (page.nextCursor !== undefined)
        headers.link = `<${c.req.path}?cursor=${encodeURIComponent(page.nextCursor)}>; rel="next"`;
      return c.body(page.body, 200, headers);
    },
    signatureAgentCard: async ({ params }, c) =>
      c.json(await signatureAgentCard(ctx, params.id), 200, {
        'cache-control': `public, max-age=${DIRECTORY_MAX_AGE_SECONDS}`,
      }),
    mandateContext: (_, c) =>
      c.json(wireObject(MANDATE_CONTEXT), 200, {
        'content-type': 'application/ld+json',
        'cache-control': 'public, max-age=86400',
      }),
  };
}

export function healthHandlers(ctx: IssuerContext): HandlersOf<typeof healthEndpoints> {
  return {
    health: () => ({ ok: true as const, issuer: ctx.issuer.did }),
    ready: async () => {
      const readiness = await checkReadiness(ctx.readinessChecks);
      if (readiness.ready) return { ok: true as const, checks: readiness.checks };
      // Not audited: a probe every few seconds against a database that is down would flood the
      // log (and could not be written to it anyway).
      throw refuse('NOT_READY', `not ready: ${readiness.failed.join(', ')} did not answer`, {
        details: { checks: readiness.checks },
        retryAfterSeconds: 1,
        audit: false,
      });
    },
  };
}
