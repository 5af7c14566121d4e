/**
 * The Web Bot Auth profile of HTTP Message Signatures (draft-ietf-webbotauth-httpsig-protocol,
 * editor's copy of late 2026): `tag="web-bot-auth"`, `keyid` = the RFC 7638 JWK thumbprint of the
 * signing key, `created` and `expires` required, and the `Signature-Agent` header — an RFC 8941
 * dictionary of https URLs, each with an optional `type` token (`directory`, the default;
 * `jwks_uri`; `cimd`) — covered as `"signature-agent";key="<member>"` (RFC 9421 §2.1.2). The
 * draft's older form, a bare sf-string covered whole, is accepted on verify (§Signature-Agent:
 * "A verifier MAY accept that form"); Mandate signs the dictionary form unless asked otherwise.
 * docs/http-signatures.md §Web Bot Auth says where the draft still moves.
 */
import { ed25519Thumbprint } from '../crypto/jwt.ts';
import type { ComponentId, HttpMessageView } from './base.ts';
import { refuse } from './errors.ts';
import {
  isInnerList,
  parseDictionary,
  parseItemField,
  serializeBareItem,
  serializeDictionary,
  SfToken,
  StructuredFieldError,
  type Dictionary,
  type Member,
} from './structured-fields.ts';

/** The `tag` of a Web Bot Auth signature. */
export const WEB_BOT_AUTH_TAG = 'web-bot-auth';

/** How a verifier resolves a `Signature-Agent` URL to keys (the draft's `type` parameter). */
export type SignatureAgentType = 'directory' | 'jwks_uri' | 'cimd';
const AGENT_TYPES: readonly string[] = ['directory', 'jwks_uri', 'cimd'];

/** The `Signature-Agent` a signature covers: where its keys are published. */
export interface SignatureAgent {
  /** The https URL (for `directory`, an origin: the directory is at its well-known URI). */
  readonly url: string;
  readonly type: SignatureAgentType;
  /** The dictionary member's key; undefined for the older bare-string form. */
  readonly member?: string;
}

export interface WebBotAuthSignOptions {
  /** The https URL of the agent's keys (`Signature-Agent`); without it, no header (keyid only). */
  signatureAgent?: string;
  /** How the URL resolves (default `directory`, whose value must be an origin). */
  type?: SignatureAgentType;
  /** The dictionary member's key (default: the signature's label). */
  member?: string;
  /** Send the older bare sf-string form, covered whole (for verifiers that lag the draft). */
  legacy?: boolean;
}

export interface WebBotAuthVerifyOptions {
  /** Refuse a signature that covers no `Signature-Agent` (default true: the draft says MUST). */
  requireSignatureAgent?: boolean;
  /** Accept the older bare sf-string form (default true). */
  acceptLegacy?: boolean;
}

function agentInvalid(message: string, cause?: unknown): never {
  return refuse('HTTP_SIGNATURE_AGENT_INVALID', `Signature-Agent: ${message}`, cause);
}

/** The draft §Signature-Agent: an https URI; for `directory`, the serialisation of an origin. */
function checkAgentUrl(url: string, type: SignatureAgentType, fail: (message: string) => never): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(`${JSON.stringify(url)} is not an absolute URL`);
  }
  if (parsed.protocol !== 'https:') fail('the URL must be https');
  if (type === 'directory' && url !== parsed.origin && url !== `${parsed.origin}/`)
    fail('a directory member is an origin (its keys are at the well-known URI)');
}

/**
 * Signing: writes the `Signature-Agent` header (merged into one already there) and returns the
 * component that covers it. Throws HTTP_SIGNATURE_OPTIONS_INVALID.
 */
export function addSignatureAgent(headers: Headers, label: string, options: WebBotAuthSignOptions): string | undefined {
  const invalid = (message: string): never => refuse('HTTP_SIGNATURE_OPTIONS_INVALID', `Web Bot Auth: ${message}`);
  if (options.signatureAgent === undefined) return undefined;
  const type = options.type ?? 'directory';
  checkAgentUrl(options.signatureAgent, type, invalid);
  if (options.legacy) {
    if (headers.has('signature-agent')) invalid('the message already has a Signature-Agent');
    headers.set('signature-agent', serializeBareItem(options.signatureAgent));
    return 'signature-agent';
  }
  const member = options.member ?? label;
  if (!/^[a-z*][a-z0-9_\-.*]*$/.test(member)) invalid('a member key is an RFC 8941 key');
  let dictionary: Dictionary;
  try {
    dictionary = parseDictionary(headers.get('signature-agent') ?? '');
  } catch {
    return invalid('the message has a Signature-Agent that is not a dictionary');
  }
  if (dictionary.has(member)) invalid(`Signature-Agent already has a member "${member}"`);
  const params = new Map(options.type === undefined ? [] : [['type', new SfToken(type)] as const]);
  dictionary.set(member, { value: options.signatureAgent, params });
  headers.set('signature-agent', serializeDictionary(dictionary));
  return `signature-agent;key=${serializeBareItem(member)}`;
}

/** Signing: the keyid Web Bot Auth requires is the thumbprint of the signer's key. */
export function checkWebBotAuthSigner(keyid: string, publicKey: Uint8Array | undefined, tag: string | undefined): void {
  const invalid = (message: string): never => refuse('HTTP_SIGNATURE_OPTIONS_INVALID', `Web Bot Auth: ${message}`);
  if (tag !== undefined && tag !== WEB_BOT_AUTH_TAG) invalid(`the tag is "${WEB_BOT_AUTH_TAG}"`);
  if (publicKey === undefined) return invalid('the signer must carry its public key (requestSigner does)');
  if (ed25519Thumbprint(publicKey) !== keyid) invalid("the keyid must be the key's RFC 7638 thumbprint");
}

function memberAgent(key: string, member: Member): SignatureAgent {
  if (isInnerList(member) || typeof member.value !== 'string') return agentInvalid(`member "${key}" is not a string`);
  const type = member.params.get('type') ?? new SfToken('directory');
  // The draft: a verifier MUST ignore a member whose type it does not support.
  if (!(type instanceof SfToken) || !AGENT_TYPES.includes(type.value))
    return agentInvalid(`member "${key}" has an unsupported type`);
  const agent = { url: member.value, type: type.value as SignatureAgentType, member: key };
  checkAgentUrl(agent.url, agent.type, agentInvalid);
  return agent;
}

/** The older form: one sf-string, covered whole (the draft's §Legacy Signature-Agent). */
function legacyAgent(field: string, covered: readonly ComponentId[], accept: boolean): SignatureAgent {
  if (!accept) return agentInvalid('the bare-string form is not accepted here');
  if (!covered.some((c) => !c.params.has('key'))) return agentInvalid('a bare string is covered whole');
  let url: unknown;
  try {
    url = parseItemField(field).value;
  } catch (error) {
    return agentInvalid('not an RFC 8941 string', error);
  }
  if (typeof url !== 'string') return agentInvalid('not an RFC 8941 string');
  checkAgentUrl(url, 'directory', agentInvalid);
  return { url, type: 'directory' };
}

/**
 * Verifying: the `Signature-Agent` member the signature labelled `label` covers — the one keyed
 * by its label, else the only one it covers (the draft's own test vectors key `sig2`'s member
 * `agent2`). Undefined when none is covered and none is required. Throws HTTP_SIGNATURE_AGENT_INVALID.
 */
export function coveredSignatureAgent(
  message: HttpMessageView,
  label: string,
  covered: readonly ComponentId[],
  options: WebBotAuthVerifyOptions,
): SignatureAgent | undefined {
  const field = message.headers.get('signature-agent');
  const ids = covered.filter((c) => c.name === 'signature-agent' && !c.params.has('req'));
  if (field === null || ids.length === 0) {
    if (options.requireSignatureAgent === false) return undefined;
    return agentInvalid('the signature covers no Signature-Agent (the draft requires one)');
  }
  if (field.trimStart().startsWith('"')) return legacyAgent(field, ids, options.acceptLegacy !== false);
  let dictionary: Dictionary;
  try {
    dictionary = parseDictionary(field);
  } catch (error) {
    if (!(error instanceof StructuredFieldError)) throw error;
    return agentInvalid('not an RFC 8941 dictionary', error);
  }
  const whole = ids.some((c) => !c.params.has('key'));
  const keys = whole ? [...dictionary.keys()] : ids.map((c) => c.params.get('key') as string);
  const key = keys.includes(label) ? label : keys.length === 1 ? keys[0] : undefined;
  const member = key === undefined ? undefined : dictionary.get(key);
  if (key === undefined || member === undefined)
    return agentInvalid(`no covered member for signature "${label}" (one keyed by its label, or exactly one)`);
  return memberAgent(key, member);
}
