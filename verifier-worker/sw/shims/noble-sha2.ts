/**
 * A build-time stand-in for `@noble/hashes/sha2.js` in the service-worker bundle (aliased in
 * verifier-worker/vite.sw.config.ts): SHA-256 is the real one; SHA-512 is left out.
 *
 * Why: in the wallet, SHA-512 serves only the pure-JS Ed25519 path (noble's keygen and signing,
 * and the cofactorless verification fallback, RFC 8032 §5.1.6–5.1.7). The worker verifies and
 * never signs, and it verifies with WebCrypto Ed25519 (Chromium 137+, Firefox 129+, Safari 17+),
 * so that path never runs there — yet it costs 2.3 KB gzip of the worker's 40 KB budget. A
 * service worker cannot load it lazily instead: `import()` is refused in service workers
 * (HTML §8.1.5.1 HostLoadImportedModule).
 *
 * The worker therefore REQUIRES WebCrypto Ed25519: it refuses to install without it
 * (worker.ts), and registerVerifier reports SW_UNSUPPORTED before even registering. Were the
 * fallback reached anyway, this SHA-512 throws, and Ed25519 verification (which turns every
 * exception into `false`) fails closed. Public-key validation (curve points, torsion) does not
 * hash and is unaffected.
 */
export { sha256 } from '../../../node_modules/@noble/hashes/sha2.js';

function unavailable(): never {
  throw new Error('SHA-512 is not part of the verifier worker');
}

/** Shaped like noble's CHash (eddsa() checks `outputLen` when the curve is built); never computes. */
export const sha512 = /* @__PURE__ */ Object.assign((_message: Uint8Array): Uint8Array => unavailable(), { outputLen: 64, blockLen: 128, create: unavailable });
