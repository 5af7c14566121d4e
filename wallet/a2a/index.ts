/**
 * A2A agent cards bound to the agent's DID (docs/a2a.md): `signAgentCard` signs an A2A v1.0
 * card with the agent's DID key and names its credential chain in the Mandate identity
 * extension; `verifyAgentCardSignature` and `verifyAgentCard` check it.
 */
export { A2A_CARD_CODES, A2aCardError, type A2aCardCode, type AgentCardReason } from './errors.ts';
export { MANDATE_A2A_EXTENSION_URI, readMandateExtension, type MandateCardIdentity } from './extension.ts';
export {
  MAX_AGENT_CARD_BYTES,
  agentCardPayload,
  signedAgentCard,
  type AgentCard,
  type AgentCapabilities,
  type AgentCardSignature,
  type AgentExtension,
} from './payload.ts';
export { signAgentCard, type SignAgentCardOptions, type SignedAgentCard } from './sign.ts';
export {
  verifyAgentCardSignature,
  type AgentCardFailure,
  type AgentCardSignatureSuccess,
  type VerifyAgentCardSignatureOptions,
} from './verify-signature.ts';
export {
  verifyAgentCard,
  type AgentCardVerificationResult,
  type AgentCardVerified,
  type VerifyAgentCardOptions,
} from './verify.ts';
