/**
 * `mandate/wallet/node`: everything in `mandate/wallet`, plus what only Node runs: the file key
 * and credential stores, and the `eddsa-rdfc-2022` cryptosuite (JSON-LD; browsers and the
 * service worker stay eddsa-jcs-2022 only).
 */
import { createEddsaRdfc2022 } from './crypto/eddsa-rdfc-2022.ts';
import { bundledDocumentLoader } from './jsonld/document-loader.ts';

export * from './index.ts';
export { createFileKeyStore, type FileKeyStoreOptions } from './keystore/node.ts';
export { createFileCredentialStore, type FileCredentialStoreOptions } from './client/credential-store-file.ts';
export {
  createEddsaRdfc2022,
  EDDSA_RDFC_2022,
  type EddsaRdfc2022Cryptosuite,
  type EddsaRdfc2022Options,
  type RdfcDocumentLoader,
} from './crypto/eddsa-rdfc-2022.ts';
export type { EddsaCryptosuite } from './crypto/cryptosuite.ts';

/**
 * eddsa-rdfc-2022 over the bundled contexts (VC 1.1 and 2.0, the W3C examples, Data Integrity
 * v2, Multikey v1, Mandate's): `createProof(doc, { cryptosuite: eddsaRdfc2022, … })`,
 * `verifyProof(doc, { cryptosuites: [eddsaRdfc2022], … })`. Any other context URL is
 * PROOF_MALFORMED.
 */
export const eddsaRdfc2022 = /* @__PURE__ */ createEddsaRdfc2022({ documentLoader: bundledDocumentLoader });
