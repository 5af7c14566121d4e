/**
 * What an A2A v1.0 Agent Card signature covers (A2A v1.0 §8.4.1): the card as the protobuf data
 * model reconstructs it, `signatures` excluded, then RFC 8785 (JCS).
 *
 * §8.4.1 rule 1 reads the field presence of specification/a2a.proto, so the card is walked
 * against that schema (the table below, one line per field):
 * - `REQUIRED` fields are kept as they are, even empty;
 * - `optional` fields (proto3 explicit presence) are kept when present, even at their default;
 * - singular message fields (explicit presence in proto3) are kept when present;
 * - every other field (implicit presence: plain scalars, repeated, maps) is dropped at its
 *   default: "", false, [] or {};
 * - JSON `null` is an absent field (protobuf JSON mapping); `google.protobuf.Struct` contents
 *   (an extension's `params`, a signature's `header`) are kept verbatim;
 * - members the v1.0 schema does not define are not part of the reconstructed card, so no
 *   signature covers them: the verifier hands back the covered card only.
 * A value of the wrong JSON type for its field is a malformed card (the protobuf JSON parser
 * refuses it too). docs/a2a.md §What is signed.
 */
import { canonicalBytes } from '../crypto/jcs.ts';
import { assertSafeJson } from '../crypto/json-safe.ts';
import { isObject, type JsonObject, type JsonValue } from '../crypto/json-value.ts';
import { A2aCardError } from './errors.ts';

/** An A2A v1.0 Agent Card in its JSON form (A2A v1.0 §4.4.1); members are checked when it is signed or verified. */
export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: JsonObject[];
  version: string;
  capabilities: AgentCapabilities;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: JsonObject[];
  signatures?: AgentCardSignature[];
  [member: string]: unknown;
}

/** A2A v1.0 §4.4.3 AgentCapabilities. */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
  [member: string]: unknown;
}

/** A2A v1.0 §4.4.4 AgentExtension. */
export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
  [member: string]: unknown;
}

/** A2A v1.0 §4.4.7 AgentCardSignature: a detached JWS in the flattened JSON members (RFC 7515 §7.2.2). */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: JsonObject;
  [member: string]: unknown;
}

type Scalar = 'string' | 'bool';
/** A field's value: a scalar, a message of the table, a Struct, or a list or map of one of these. */
type Value =
  Scalar | 'struct' | `msg:${string}` | `list:${Scalar | `msg:${string}`}` | `map:${Scalar | `msg:${string}`}`;
/** req: REQUIRED; opt: `optional`; msg: singular message (explicit presence); dft: implicit presence. */
type Presence = 'req' | 'opt' | 'msg' | 'dft';
type Schema = Readonly<Record<string, readonly [Presence, Value]>>;

// specification/a2a.proto (A2A v1.0), the messages an AgentCard reaches, fields in proto order,
// names in their protobuf JSON form (lowerCamelCase).
const SCHEMAS: Readonly<Record<string, Schema>> = {
  AgentCard: {
    name: ['req', 'string'],
    description: ['req', 'string'],
    supportedInterfaces: ['req', 'list:msg:AgentInterface'],
    provider: ['msg', 'msg:AgentProvider'],
    version: ['req', 'string'],
    documentationUrl: ['opt', 'string'],
    capabilities: ['req', 'msg:AgentCapabilities'],
    securitySchemes: ['dft', 'map:msg:SecurityScheme'],
    securityRequirements: ['dft', 'list:msg:SecurityRequirement'],
    defaultInputModes: ['req', 'list:string'],
    defaultOutputModes: ['req', 'list:string'],
    skills: ['req', 'list:msg:AgentSkill'],
    // signatures (13): excluded, §8.4.1 rule 3.
    iconUrl: ['opt', 'string'],
  },
  AgentInterface: {
    url: ['req', 'string'],
    protocolBinding: ['req', 'string'],
    tenant: ['dft', 'string'],
    protocolVersion: ['req', 'string'],
  },
  AgentProvider: { url: ['req', 'string'], organization: ['req', 'string'] },
  AgentCapabilities: {
    streaming: ['opt', 'bool'],
    pushNotifications: ['opt', 'bool'],
    extensions: ['dft', 'list:msg:AgentExtension'],
    extendedAgentCard: ['opt', 'bool'],
  },
  AgentExtension: {
    uri: ['dft', 'string'],
    description: ['dft', 'string'],
    required: ['dft', 'bool'],
    params: ['msg', 'struct'],
  },
  AgentSkill: {
    id: ['req', 'string'],
    name: ['req', 'string'],
    description: ['req', 'string'],
    tags: ['req', 'list:string'],
    examples: ['dft', 'list:string'],
    inputModes: ['dft', 'list:string'],
    outputModes: ['dft', 'list:string'],
    securityRequirements: ['dft', 'list:msg:SecurityRequirement'],
  },
  SecurityRequirement: { schemes: ['dft', 'map:msg:StringList'] },
  StringList: { list: ['dft', 'list:string'] },
  SecurityScheme: {
    apiKeySecurityScheme: ['msg', 'msg:APIKeySecurityScheme'],
    httpAuthSecurityScheme: ['msg', 'msg:HTTPAuthSecurityScheme'],
    oauth2SecurityScheme: ['msg', 'msg:OAuth2SecurityScheme'],
    openIdConnectSecurityScheme: ['msg', 'msg:OpenIdConnectSecurityScheme'],
    mtlsSecurityScheme: ['msg', 'msg:MutualTlsSecurityScheme'],
  },
  APIKeySecurityScheme: {
    description: ['dft', 'string'],
    location: ['req', 'string'],
    name: ['req', 'string'],
  },
  HTTPAuthSecurityScheme: {
    description: ['dft', 'string'],
    scheme: ['req', 'string'],
    bearerFormat: ['dft', 'string'],
  },
  OAuth2SecurityScheme: {
    description: ['dft', 'string'],
    flows: ['req', 'msg:OAuthFlows'],
    oauth2MetadataUrl: ['dft', 'string'],
  },
  OpenIdConnectSecurityScheme: { description: ['dft', 'string'], openIdConnectUrl: ['req', 'string'] },
  MutualTlsSecurityScheme: { description: ['dft', 'string'] },
  OAuthFlows: {
    authorizationCode: ['msg', 'msg:AuthorizationCodeOAuthFlow'],
    clientCredentials: ['msg', 'msg:ClientCredentialsOAuthFlow'],
    implicit: ['msg', 'msg:ImplicitOAuthFlow'],
    password: ['msg', 'msg:PasswordOAuthFlow'],
    deviceCode: ['msg', 'msg:DeviceCodeOAuthFlow'],
  },
  AuthorizationCodeOAuthFlow: {
    authorizationUrl: ['req', 'string'],
    tokenUrl: ['req', 'string'],
    refreshUrl: ['dft', 'string'],
    scopes: ['req', 'map:string'],
    pkceRequired: ['dft', 'bool'],
  },
  ClientCredentialsOAuthFlow: {
    tokenUrl: ['req', 'string'],
    refreshUrl: ['dft', 'string'],
    scopes: ['req', 'map:string'],
  },
  ImplicitOAuthFlow: {
    authorizationUrl: ['dft', 'string'],
    refreshUrl: ['dft', 'string'],
    scopes: ['dft', 'map:string'],
  },
  PasswordOAuthFlow: { tokenUrl: ['dft', 'string'], refreshUrl: ['dft', 'string'], scopes: ['dft', 'map:string'] },
  DeviceCodeOAuthFlow: {
    deviceAuthorizationUrl: ['req', 'string'],
    tokenUrl: ['req', 'string'],
    refreshUrl: ['dft', 'string'],
    scopes: ['req', 'map:string'],
  },
};

/** Largest card accepted (its canonical UTF-8 form), and deepest: an extension's params are free JSON. */
export const MAX_AGENT_CARD_BYTES = 256 * 1024;
const LIMITS = { maxBytes: MAX_AGENT_CARD_BYTES, maxDepth: 32 };

function malformed(path: string, message: string): never {
  throw new A2aCardError('A2A_CARD_MALFORMED', `${path}: ${message}`);
}

/** The value of one field, converted to what the reconstructed card holds. */
function convert(value: JsonValue, type: Value, path: string, uncovered?: string[]): JsonValue {
  if (type === 'string' || type === 'bool') {
    if (typeof value !== (type === 'bool' ? 'boolean' : 'string')) malformed(path, `must be a ${type}`);
    return value;
  }
  if (type === 'struct') {
    if (!isObject(value)) malformed(path, 'must be a JSON object (google.protobuf.Struct)');
    return value;
  }
  if (type.startsWith('msg:')) {
    if (!isObject(value)) malformed(path, 'must be a JSON object');
    return message(value, type.slice(4), path, uncovered);
  }
  if (type.startsWith('list:')) {
    const item = type.slice('list:'.length) as Value;
    if (!Array.isArray(value)) malformed(path, 'must be an array');
    return value.map((v, i) => convert(v, item, `${path}[${i}]`, uncovered));
  }
  const item = type.slice('map:'.length) as Value;
  if (!isObject(value)) malformed(path, 'must be a JSON object (a map)');
  const map: JsonObject = {};
  for (const [key, v] of Object.entries(value)) map[key] = convert(v, item, `${path}.${key}`, uncovered);
  return map;
}

/** A proto3 implicit-presence field at its default: dropped from the canonical form (§8.4.1 rule 1). */
function isDefault(value: JsonValue): boolean {
  if (value === '' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function message(value: JsonObject, name: string, path: string, uncovered?: string[]): JsonObject {
  const schema = SCHEMAS[name] as Schema;
  if (uncovered !== undefined)
    for (const key of Object.keys(value))
      if (!Object.hasOwn(schema, key) && !(name === 'AgentCard' && key === 'signatures'))
        uncovered.push(`${path}.${key}`);
  const out: JsonObject = {};
  for (const [field, [presence, type]] of Object.entries(schema)) {
    const member = value[field];
    if (member === undefined || member === null) continue; // absent (null: protobuf JSON mapping)
    const converted = convert(member, type, `${path}.${field}`, uncovered);
    if (presence === 'dft' && isDefault(converted)) continue;
    out[field] = converted;
  }
  return out;
}

/**
 * The card as A2A v1.0 §8.4.1 signs it: reconstructed through the v1.0 schema, `signatures`
 * excluded. Throws A2aCardError A2A_CARD_MALFORMED for a value that is no JSON-safe object
 * within the limits, or a member of the wrong type. The paths of members the schema does not
 * define (which no signature covers) are pushed to `uncovered` when given.
 */
export function signedAgentCard(card: unknown, uncovered?: string[]): JsonObject {
  try {
    assertSafeJson(card, LIMITS);
  } catch (error) {
    throw new A2aCardError('A2A_CARD_MALFORMED', `the card is not JSON-safe: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!isObject(card)) malformed('card', 'must be a JSON object');
  return message(card, 'AgentCard', 'card', uncovered);
}

/** The JWS payload of a card's signatures: the RFC 8785 UTF-8 form of `signedAgentCard(card)`. */
export function agentCardPayload(card: unknown): Uint8Array {
  return canonicalBytes(signedAgentCard(card), LIMITS);
}
