/**
 * The signature base of RFC 9421 §2.5: one line per covered component, `"name";params: value`,
 * then `"@signature-params": ` and the serialised inner list of the signature's components and
 * parameters (§2.3). What is covered, and how each value is computed:
 * - derived components (§2.2): `@method`, `@target-uri`, `@authority`, `@scheme`,
 *   `@request-target`, `@path`, `@query`, and `@status` for responses. `@query-param` is not
 *   computed (refused as malformed), nor are the `sf`, `bs` and `tr` parameters;
 * - header fields (§2.1) by lowercase name: the field lines' values, trimmed and joined with
 *   ", " — what the Fetch `Headers.get` returns — and with `;key="m"` (§2.1.2) the re-serialised
 *   member `m` of the field parsed as a dictionary;
 * - `;req` (§2.4): in a response signature, the component of the request it answers.
 * Isomorphic: it reads a Fetch `Request`/`Response` or any object of the same shape.
 */
import { refuse } from './errors.ts';
import {
  isInnerList,
  parseDictionary,
  parseItemField,
  serializeBareItem,
  serializeMember,
  serializeParams,
  StructuredFieldError,
  type Item,
  type Member,
  type Params,
} from './structured-fields.ts';

/** The longest lifetime (`expires` − `created`) signed or accepted, in seconds. */
export const MAX_SIGNATURE_LIFETIME_SECONDS = 300;

/** What the signature base reads of a message: a Fetch Request or Response has this shape. */
export interface HttpMessageView {
  /** A request's method (`@method`). */
  readonly method?: string;
  /** A request's absolute URL (`@target-uri` and the components derived from it). */
  readonly url?: string;
  /** A response's status code (`@status`). */
  readonly status?: number;
  readonly headers: { get(name: string): string | null };
  /** For a response: the request it answers, which `;req` components are read from (§2.4). */
  readonly request?: HttpMessageView;
}

/** A component identifier (§2): a name (`@method`, `content-type`) and its parameters. */
export interface ComponentId {
  readonly name: string;
  readonly params: Params;
}

const DERIVED = new Set(['@method', '@target-uri', '@authority', '@scheme', '@request-target', '@path', '@query']);
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
/** Component parameters computed here (§6.5.2 registry: `sf`, `bs`, `tr`, `name` are not). */
const SUPPORTED_PARAMS = new Set(['key', 'req']);

/**
 * Reads a component identifier as a caller writes it: `@method`, `content-type`,
 * `signature-agent;key="sig1"`, or already serialised (`"@authority";req`). Throws
 * HTTP_SIGNATURE_MALFORMED.
 */
export function parseComponentId(text: string): ComponentId {
  const quoted = text.startsWith('"') ? text : `"${text.replace(/;.*$/s, '')}"${/;.*$/s.exec(text)?.[0] ?? ''}`;
  let item: Item;
  try {
    item = parseItemField(quoted);
  } catch (error) {
    return refuse('HTTP_SIGNATURE_MALFORMED', `not a component identifier: ${JSON.stringify(text)}`, error);
  }
  return componentFromItem(item);
}

/** A covered component of a `Signature-Input` inner list: a string with parameters (§2). */
export function componentFromItem(item: Item): ComponentId {
  if (typeof item.value !== 'string')
    return refuse('HTTP_SIGNATURE_MALFORMED', 'a covered component is a string (RFC 9421 §2)');
  const name = item.value;
  if (!DERIVED.has(name) && name !== '@status' && !FIELD_NAME.test(name))
    return refuse('HTTP_SIGNATURE_MALFORMED', `covered component "${name}" is not computed here (RFC 9421 §2)`);
  for (const [key, value] of item.params) {
    if (!SUPPORTED_PARAMS.has(key))
      return refuse('HTTP_SIGNATURE_MALFORMED', `component parameter "${key}" is not supported (RFC 9421 §2.1)`);
    if (key === 'req' && value !== true) return refuse('HTTP_SIGNATURE_MALFORMED', '"req" is a boolean true (§2.4)');
    if (key === 'key' && (typeof value !== 'string' || name.startsWith('@')))
      return refuse('HTTP_SIGNATURE_MALFORMED', '"key" is a string, on a header field (RFC 9421 §2.1.2)');
  }
  return { name, params: item.params };
}

/** The serialised component identifier: `"name"` and its parameters, as the base writes it. */
export function serializeComponentId(id: ComponentId): string {
  return serializeBareItem(id.name) + serializeParams(id.params);
}

function absent(what: string): never {
  return refuse('HTTP_SIGNATURE_COMPONENT_ABSENT', `${what} is not in the message (RFC 9421 §2.5)`);
}

/** §2.2: a derived component of a request (its URL parsed once by the caller). */
function derivedValue(name: string, message: HttpMessageView, url: () => URL): string {
  if (name === '@status') {
    if (message.status === undefined) return absent('@status (a request has none, RFC 9421 §2.2.9)');
    return String(message.status).padStart(3, '0');
  }
  if (name === '@method') return message.method ?? absent('@method');
  const target = url();
  switch (name) {
    case '@target-uri':
      return target.href;
    case '@authority':
      return target.host; // §2.2.3: lowercase host, default port omitted (the URL parser's form)
    case '@scheme':
      return target.protocol.slice(0, -1);
    case '@request-target':
      return target.pathname + target.search;
    case '@path':
      return target.pathname; // §2.2.6: never empty, "/" at least
    default:
      return `?${target.search.slice(1)}`; // @query, §2.2.7: "?" alone when there is none
  }
}

/** §2.1: a header field's value, or with `;key` (§2.1.2) one member of it as a dictionary. */
function fieldValue(id: ComponentId, message: HttpMessageView): string {
  const value = message.headers.get(id.name);
  if (value === null) return absent(`header field "${id.name}"`);
  const key = id.params.get('key');
  if (typeof key !== 'string') return value;
  let member;
  try {
    member = parseDictionary(value).get(key);
  } catch (error) {
    if (!(error instanceof StructuredFieldError)) throw error;
    return refuse('HTTP_SIGNATURE_MALFORMED', `"${id.name}" is not a dictionary (RFC 9421 §2.1.2)`, error);
  }
  return member === undefined ? absent(`member "${key}" of "${id.name}"`) : serializeMember(member);
}

/** One component's value in `message`. Throws HTTP_SIGNATURE_COMPONENT_ABSENT or _MALFORMED. */
export function componentValue(id: ComponentId, message: HttpMessageView, url: () => URL): string {
  let source = message;
  let sourceUrl = url;
  if (id.params.get('req') === true) {
    if (message.request === undefined)
      return refuse('HTTP_SIGNATURE_MALFORMED', '"req" is for a response bound to its request (RFC 9421 §2.4)');
    source = message.request;
    sourceUrl = urlOf(source);
  }
  const value = id.name.startsWith('@') ? derivedValue(id.name, source, sourceUrl) : fieldValue(id, source);
  // §2.5 step 2.4: a value holding a newline would forge a line of the base.
  if (/[\r\n]/.test(value)) return refuse('HTTP_SIGNATURE_MALFORMED', `"${id.name}" holds a line break`);
  return value;
}

/** The message's URL, parsed on first use. */
export function urlOf(message: HttpMessageView): () => URL {
  let parsed: URL | undefined;
  return () => {
    if (parsed) return parsed;
    if (message.url === undefined) return absent('the target URI');
    try {
      return (parsed = new URL(message.url));
    } catch (error) {
      return refuse('HTTP_SIGNATURE_MALFORMED', 'the target URI is not an absolute URL', error);
    }
  };
}

export interface SignatureBase {
  /** The signature base (§2.5), the bytes signed once UTF-8 encoded (ASCII in practice). */
  readonly base: string;
  /** The `@signature-params` value: the `Signature-Input` member of this signature (§2.3). */
  readonly signatureParams: string;
  /** Each covered component's serialised identifier and its value, in order. */
  readonly values: ReadonlyMap<string, string>;
}

/**
 * RFC 9421 §2.5: the signature base of `message` over `components` with signature parameters
 * `params` (created, expires, nonce, alg, keyid, tag, … in the order given). Throws
 * HttpSignatureError: HTTP_SIGNATURE_MALFORMED (a duplicate or uncomputable component),
 * HTTP_SIGNATURE_COMPONENT_ABSENT (a component the message lacks).
 */
export function signatureBase(
  message: HttpMessageView,
  components: readonly ComponentId[],
  params: Params,
): SignatureBase {
  const url = urlOf(message);
  const values = new Map<string, string>();
  let base = '';
  for (const id of components) {
    const identifier = serializeComponentId(id);
    if (values.has(identifier))
      return refuse('HTTP_SIGNATURE_MALFORMED', `${identifier} is covered twice (RFC 9421 §2.5 step 2.1)`);
    const value = componentValue(id, message, url);
    values.set(identifier, value);
    base += `${identifier}: ${value}\n`;
  }
  let signatureParams: string;
  try {
    signatureParams = serializeMember({
      items: components.map((id) => ({ value: id.name, params: id.params })),
      params,
    });
  } catch (error) {
    return refuse('HTTP_SIGNATURE_MALFORMED', 'a signature parameter cannot be serialised (RFC 8941 §4.1)', error);
  }
  return { base: `${base}"@signature-params": ${signatureParams}`, signatureParams, values };
}

/** Items of an inner list as component identifiers (a `Signature-Input` member, §4.1). */
export function componentsOf(member: Member): ComponentId[] {
  if (!isInnerList(member))
    return refuse('HTTP_SIGNATURE_MALFORMED', 'a Signature-Input member is an inner list (RFC 9421 §4.1)');
  return member.items.map(componentFromItem);
}
