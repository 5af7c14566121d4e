/**
 * A build-time stand-in for `wallet/crypto/ed25519-node.ts` in the service-worker bundle (aliased
 * in verifier-worker/vite.sw.config.ts): the node:crypto backend, minus node:crypto.
 *
 * Why: a service worker has no `process` (Service Workers §4.1), so `getNodeCrypto()` always
 * finds nothing there and the backend's import, sign and verify code can never run. The
 * minifier cannot see that across modules, and the dead code cost bytes of the worker's 40 KB
 * gzip budget. Here `getNodeCrypto` says null outright, and the rest throws if it were reached.
 */
import type * as NodeBackend from '../../../wallet/crypto/ed25519-node.ts';

export type NodeKeyObject = NodeBackend.NodeKeyObject;

function unavailable(): never {
  throw new Error('the Node.js Ed25519 backend is not part of the verifier worker');
}

export const getNodeCrypto: typeof NodeBackend.getNodeCrypto = () => null;
export const nodePublicKey: typeof NodeBackend.nodePublicKey = unavailable;
export const nodePrivateKey: typeof NodeBackend.nodePrivateKey = unavailable;
export const nodeGetPublicKey: typeof NodeBackend.nodeGetPublicKey = unavailable;
export const nodeSign: typeof NodeBackend.nodeSign = unavailable;
export const nodeVerify: typeof NodeBackend.nodeVerify = unavailable;
