/**
 * What every Ed25519 implementation in Mandate shares, whichever computes: the self-test
 * vector native backends must pass, and the wording of the public-key rules (so the wallet's
 * noble-based validation and the worker bundle's compact one refuse a key in the same words).
 */
import { hexToBytes } from './bytes.ts';

/**
 * RFC 8032 §7.1 TEST 1 (empty message). Native backends must verify it before they are trusted:
 * a runtime that exposes the API but computes something else falls back to noble.
 */
export const RFC8032_TEST1 = /* @__PURE__ */ Object.freeze({
  publicKey: hexToBytes('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
  message: new Uint8Array(0),
  signature: hexToBytes(
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  ),
});

/** Why a 32-byte public key is refused (ed25519-noble.ts `publicKeyProblem` explains each rule). */
export const PUBLIC_KEY_PROBLEMS = /* @__PURE__ */ Object.freeze({
  encoding: 'public key is not a canonical encoding of a curve point (RFC 8032 §5.1.3)',
  smallOrder: 'public key has small order',
  torsion: 'public key has a small-order (torsion) component',
});
