/**
 * Reading a refusal's challenges: `WWW-Authenticate` (RFC 9110 §11.6.1, several challenges in one
 * field or in several fields) and `Accept-Signature` (RFC 9421 §5.1), reduced to what
 * `agent.fetch` can answer:
 * - `oauth`: a `Bearer` (RFC 6750 §3) or `DPoP` (RFC 9449 §7.1) challenge — its `error`, `scope`
 *   and `resource_metadata` (RFC 9728 §5.1);
 * - `presentation`: a Mandate verifier's `VP` challenge (docs/verifier.md §4: `realm` = the target,
 *   `challenge-endpoint` or `challenge-header`);
 * - `signature`: the label, components and `tag` a service asks a signature to have.
 * Nothing here trusts the values: discovery checks every URL it is given.
 */
import { isInnerList, parseDictionary, serializeItem } from '../http-signatures/structured-fields.ts';

/** One challenge: its scheme (lower case) and its auth-params (names lower case; a token68 under ""). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** An OAuth challenge (Bearer or DPoP), the parameters the agent acts on. */
export interface OAuthChallenge {
  scheme: 'bearer' | 'dpop';
  error?: string;
  /** The challenged scopes (RFC 6750 §3 `scope`, space-separated), in order. */
  scopes: string[];
  resourceMetadata?: string;
}

/** A Mandate verifier's presentation challenge (docs/verifier.md §4 "Read the answer"). */
export interface PresentationChallenge {
  /** The target name to sign the proof's `domain` with. */
  realm?: string;
  challengeEndpoint?: string;
  challengeHeader?: string;
  error?: string;
}

/** What a service asks a request signature to be (RFC 9421 §5.1). */
export interface SignatureRequest {
  label: string;
  /** Covered components beyond the signer's defaults, serialized (`"content-type"`, `"@target-uri"`). */
  components: string[];
  tag?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;

/** A quoted-string (RFC 9110 §5.6.4) at the start of `text`: its value and its length. */
function quoted(text: string): [string, number] | undefined {
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') value += text[++i] ?? '';
    else if (c === '"') return [value, i + 1];
    else value += c;
  }
  return undefined;
}

/** The auth-param at the start of `text` (`name = token / quoted-string`), or undefined. */
function authParam(text: string): { name: string; value: string; rest: string } | undefined {
  const name = TOKEN.exec(text)?.[0];
  if (name === undefined) return undefined;
  const after = text.slice(name.length).trimStart();
  if (!after.startsWith('=')) return undefined;
  const valueText = after.slice(1).trimStart();
  if (valueText.startsWith('"')) {
    const q = quoted(valueText);
    return q === undefined ? undefined : { name: name.toLowerCase(), value: q[0], rest: valueText.slice(q[1]) };
  }
  const token = TOKEN.exec(valueText)?.[0];
  return token === undefined
    ? undefined
    : { name: name.toLowerCase(), value: token, rest: valueText.slice(token.length) };
}

/**
 * The challenges of a `WWW-Authenticate` value (RFC 9110 §11.6.1: `#challenge`, each
 * `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`). Unreadable rests are dropped, not guessed.
 */
export function parseChallenges(header: string | null): Challenge[] {
  const challenges: Challenge[] = [];
  let text = (header ?? '').trim();
  while (text.length > 0) {
    text = text.replace(/^[\s,]+/, '');
    const scheme = TOKEN.exec(text)?.[0];
    if (scheme === undefined) break;
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    challenges.push(challenge);
    text = text.slice(scheme.length);
    const rest = text.trimStart();
    const token68 = text !== rest ? TOKEN68.exec(rest)?.[0] : undefined;
    if (token68 !== undefined && /^\s*(,|$)/.test(rest.slice(token68.length)) && authParam(rest) === undefined) {
      challenge.params[''] = token68;
      text = rest.slice(token68.length);
      continue;
    }
    // auth-params, comma-separated, until the next challenge's scheme (a token not followed by '=').
    for (;;) {
      text = text.replace(/^[\s,]+/, '');
      const param = authParam(text);
      if (param === undefined) break;
      challenge.params[param.name] ??= param.value;
      text = param.rest;
    }
  }
  return challenges;
}

/** The first OAuth challenge, DPoP's first when both are given (RFC 9449 §7.1 puts the failing scheme first). */
export function oauthChallenge(challenges: readonly Challenge[]): OAuthChallenge | undefined {
  const found = challenges.find((c) => c.scheme === 'dpop' || c.scheme === 'bearer');
  if (found === undefined) return undefined;
  // A DPoP challenge that says nothing but `algs` defers to its Bearer sibling's parameters.
  const withParams = challenges.find((c) => (c.scheme === 'dpop' || c.scheme === 'bearer') && c.params.error) ?? found;
  const metadata = challenges.find((c) => c.params.resource_metadata !== undefined)?.params.resource_metadata;
  const scope = challenges.find((c) => c.params.scope !== undefined)?.params.scope;
  const result: OAuthChallenge = {
    scheme: found.scheme as 'bearer' | 'dpop',
    scopes: (withParams.params.scope ?? scope ?? '').split(' ').filter((s) => s.length > 0),
  };
  if (withParams.params.error !== undefined) result.error = withParams.params.error;
  if (metadata !== undefined) result.resourceMetadata = metadata;
  return result;
}

/** A Mandate verifier's `VP` challenge, when the answer carries one. */
export function presentationChallenge(challenges: readonly Challenge[]): PresentationChallenge | undefined {
  const vp = challenges.find((c) => c.scheme === 'vp');
  if (vp === undefined) return undefined;
  const result: PresentationChallenge = {};
  if (vp.params.realm !== undefined) result.realm = vp.params.realm;
  if (vp.params['challenge-endpoint'] !== undefined) result.challengeEndpoint = vp.params['challenge-endpoint'];
  if (vp.params['challenge-header'] !== undefined) result.challengeHeader = vp.params['challenge-header'];
  if (vp.params.error !== undefined) result.error = vp.params.error;
  return result;
}

/** Components the agent's signer covers anyway (chain-request.ts, http-signatures/sign.ts). */
const DEFAULT_COMPONENTS = new Set(['"@method"', '"@authority"', '"@path"', '"@query"', '"content-digest"']);

/**
 * The first signature an `Accept-Signature` field asks for (RFC 9421 §5.1: a Dictionary of inner
 * lists of component identifiers, with the wanted parameters), or undefined when there is none
 * (or it does not parse: then the agent's default signature is all it can offer).
 */
export function signatureRequest(header: string | null): SignatureRequest | undefined {
  if (header === null) return undefined;
  try {
    for (const [label, member] of parseDictionary(header)) {
      if (!isInnerList(member)) continue;
      const components = member.items.map(serializeItem).filter((c) => !DEFAULT_COMPONENTS.has(c));
      const tag = member.params.get('tag');
      return { label, components, ...(typeof tag === 'string' ? { tag } : {}) };
    }
  } catch {
    return undefined;
  }
  return undefined;
}
