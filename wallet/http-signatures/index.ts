/**
 * HTTP Message Signatures (RFC 9421) with Ed25519, Content-Digest (RFC 9530) and the RFC 8941
 * structured fields they are written in: sign a request or a response, verify one. See
 * docs/http-signatures.md. This layer imports only wallet/crypto (and the reason registry).
 */
export { HttpSignatureError, HTTP_SIGNATURE_REASONS, type HttpSignatureErrorCode } from './errors.ts';
export {
  signatureBase,
  parseComponentId,
  serializeComponentId,
  MAX_SIGNATURE_LIFETIME_SECONDS,
  type HttpMessageView,
  type ComponentId,
  type SignatureBase,
} from './base.ts';
export { createContentDigest, verifyContentDigest, type ContentDigestAlgorithm } from './content-digest.ts';
export {
  signRequest,
  signResponse,
  requestSigner,
  identityRequestSigner,
  DEFAULT_SIGNATURE_LIFETIME_SECONDS,
  type RequestSigner,
  type SignatureOptions,
  type SignRequestOptions,
  type SignResponseOptions,
} from './sign.ts';
export {
  WEB_BOT_AUTH_TAG,
  type SignatureAgent,
  type SignatureAgentType,
  type WebBotAuthSignOptions,
  type WebBotAuthVerifyOptions,
} from './web-bot-auth.ts';
export {
  verifyRequestSignature,
  verifyResponseSignature,
  verifyMessageSignature,
  type VerifySignatureOptions,
  type VerifiedSignature,
  type VerifiedRequestSignature,
  type SignatureParameters,
  type SignatureReplayStore,
} from './verify.ts';
export {
  parseDictionary,
  parseList,
  parseItemField,
  serializeDictionary,
  serializeList,
  serializeItem,
  serializeMember,
  SfToken,
  SfDecimal,
  StructuredFieldError,
  isInnerList,
  type BareItem,
  type Params,
  type Item,
  type InnerList,
  type Member,
  type Dictionary,
} from './structured-fields.ts';
