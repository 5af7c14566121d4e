/**
 * A build-time stand-in for `@noble/curves/ed25519.js` in the service-worker bundle (aliased in
 * verifier-worker/vite.sw.config.ts): no curve at all.
 *
 * Why: wallet/crypto/ed25519.ts imports noble's `ed25519` for key generation and signing only
 * (its verification goes through ed25519-noble.ts, itself replaced in the worker by
 * shims/ed25519-noble.ts). The worker verifies and never signs, and noble's `ed25519` would bring
 * its whole field, point and EdDSA code for those two functions. Here both throw.
 */
import type { ed25519 as NobleEd25519 } from '@noble/curves/ed25519.js';

function unavailable(): never {
  throw new Error('Ed25519 signing is not part of the verifier worker');
}

export const ed25519: Pick<typeof NobleEd25519, 'getPublicKey' | 'sign'> = /* @__PURE__ */ Object.freeze({
  getPublicKey: unavailable,
  sign: unavailable,
});
