/**
 * The API reference page (`GET /docs`): the OpenAPI 3.1 document the routes are generated from,
 * rendered on the server into one self-contained HTML page. No script, no external asset (the
 * issuer often runs on a closed network, and a page without script cannot be made to run any:
 * the route sends `default-src 'none'; style-src 'unsafe-inline'`).
 *
 * Every string that comes from the document is HTML-escaped. Named schemas (`$ref` into
 * `components.schemas`) are expanded once, in a Schemas section, and linked everywhere else.
 */

/** The parts of an OpenAPI 3.1 document (OAS 3.1 §4.8) this page reads. */
import { apiDocsEndpoints } from '../../wallet/contract/api-docs.ts';

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  paths?: Record<string, object>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  tags?: Array<{ name: string; description?: string }>;
}

type Json = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Deeper nesting is shown as "…": real request schemas are 3–4 levels deep. */
const MAX_SCHEMA_DEPTH = 6;
const OPENAPI_PATH = apiDocsEndpoints.openApiDocument.path;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML-escapes text for element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A stable anchor for an operation: "post-v1-vp-verify". */
function anchorOf(method: string, path: string): string {
  return `${method}-${path}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

interface Operation {
  method: string;
  path: string;
  op: Json;
  tag: string;
}

function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const members = new Map<string, unknown>(Object.entries(item));
    for (const method of METHODS) {
      const op = members.get(method);
      if (!isObject(op)) continue;
      const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [];
      operations.push({ method, path, op, tag: tags[0] ?? 'Other' });
    }
  }
  return operations;
}

function resolveRef(doc: OpenApiDocument, schema: Json): { name?: string; schema: Json } {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return { schema };
  const name = ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined;
  const target = name === undefined ? undefined : doc.components?.schemas?.[name];
  return isObject(target) ? { name, schema: target } : { name: ref, schema: {} };
}

function schemaLink(name: string): string {
  return `<a href="#schema-${escapeHtml(name.replace(/[^A-Za-z0-9_-]/g, '-'))}">${escapeHtml(name)}</a>`;
}

/** A one-line type for a schema (HTML): "string", "array of X", a linked component, an enum. */
function typeLabel(doc: OpenApiDocument, raw: Json, depth = 0): string {
  const { name, schema } = resolveRef(doc, raw);
  if (name !== undefined && depth > 0) return schemaLink(name);
  if (Array.isArray(schema.enum)) return escapeHtml(schema.enum.map((v) => JSON.stringify(v)).join(' | '));
  if (schema.const !== undefined) return escapeHtml(JSON.stringify(schema.const));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options))
      return options
        .filter(isObject)
        .map((o) => typeLabel(doc, o, depth + 1))
        .join(' | ');
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : text(schema.type);
  if (type === 'array' && isObject(schema.items)) return `array of ${typeLabel(doc, schema.items, depth + 1)}`;
  return escapeHtml(type || (isObject(schema.properties) ? 'object' : 'any'));
}

function constraints(schema: Json): string[] {
  const notes: string[] = [];
  const pairs: Array<[string, string]> = [
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minimum', '≥'],
    ['maximum', '≤'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
    ['pattern', 'pattern'],
    ['format', 'format'],
  ];
  for (const [key, label] of pairs) {
    const value = schema[key];
    if (value !== undefined)
      notes.push(
        `${label} ${typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value)}`,
      );
  }
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
  return notes;
}

/**
 * A schema as nested lists of its properties. Named components are linked, never expanded
 * inline (each is expanded once, in the Schemas section), which keeps the page small and
 * makes recursive schemas finite.
 */
function renderSchema(doc: OpenApiDocument, raw: Json, depth: number): string {
  const { name, schema } = resolveRef(doc, raw);
  if (name !== undefined && depth > 0) return `<p class="type">${schemaLink(name)}</p>`;
  if (depth > MAX_SCHEMA_DEPTH) return '<p class="type">…</p>';
  const target =
    text(schema.type) === 'array' && isObject(schema.items) && schema.items.$ref === undefined ? schema.items : schema;
  const properties = isObject(target.properties) ? target.properties : undefined;
  const head = `<p class="type">${typeLabel(doc, schema)}${text(schema.description) ? ` — ${escapeHtml(schema.description)}` : ''}</p>`;
  if (!properties) return head;
  const required = new Set(Array.isArray(target.required) ? target.required : []);
  const rows = Object.entries(properties)
    .filter((entry): entry is [string, Json] => isObject(entry[1]))
    .map(([property, child]) => {
      const inline = child.$ref === undefined;
      const nested =
        inline &&
        (isObject(child.properties) ||
          (isObject(child.items) && child.items.$ref === undefined && isObject(child.items.properties)));
      const notes = inline ? constraints(child) : [];
      return `<li><code>${escapeHtml(property)}</code> <span class="type">${typeLabel(doc, child, 1)}</span>${
        required.has(property) ? ' <span class="req">required</span>' : ''
      }${inline && text(child.description) ? ` — ${escapeHtml(child.description)}` : ''}${
        notes.length > 0 ? ` <span class="notes">(${escapeHtml(notes.join(', '))})</span>` : ''
      }${nested ? renderSchema(doc, child, depth + 1).replace(/^<p class="type">.*?<\/p>/, '') : ''}</li>`;
    });
  return `${head}<ul class="props">${rows.join('')}</ul>`;
}

/** Request bodies and success responses are expanded; error bodies (one shared schema) are linked. */
function renderContent(doc: OpenApiDocument, content: unknown, expand: boolean): string {
  if (!isObject(content)) return '';
  return Object.entries(content)
    .map(([mediaType, media]) => {
      const schema = isObject(media) && isObject(media.schema) ? media.schema : undefined;
      const body =
        schema === undefined
          ? ''
          : schema.$ref !== undefined && !expand
            ? `<p class="type">${typeLabel(doc, schema, 1)}</p>`
            : renderSchema(doc, schema, 0);
      return `<div class="media"><span class="mt">${escapeHtml(mediaType)}</span>${body}</div>`;
    })
    .join('');
}

function renderComponents(doc: OpenApiDocument): string {
  const schemas = Object.entries(doc.components?.schemas ?? {}).filter((entry): entry is [string, Json] =>
    isObject(entry[1]),
  );
  if (schemas.length === 0) return '';
  return `<h2 id="schemas">Schemas</h2>${schemas
    .map(
      ([name, schema]) =>
        `<section class="schema" id="schema-${escapeHtml(name.replace(/[^A-Za-z0-9_-]/g, '-'))}"><h3>${escapeHtml(name)}</h3>${renderSchema(doc, schema, 0)}</section>`,
    )
    .join('')}`;
}

function renderParameters(op: Json): string {
  const params = Array.isArray(op.parameters) ? op.parameters.filter(isObject) : [];
  if (params.length === 0) return '';
  const rows = params.map((p) => {
    const schema = isObject(p.schema) ? p.schema : {};
    return `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${escapeHtml(text(schema.type) || 'string')}</td><td>${
      p.required === true ? 'yes' : 'no'
    }</td><td>${escapeHtml(text(p.description) || text(schema.description))}</td></tr>`;
  });
  return `<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>type</th><th>required</th><th>description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** "public", or the security schemes an operation requires (a bearer scheme reads "admin"). */
function whoMayCall(doc: OpenApiDocument, op: Json): string {
  const security = Array.isArray(op.security) ? op.security.filter(isObject) : [];
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.length === 0) return '<span class="who public">public</span>';
  return schemes
    .map((scheme) => {
      const definition = doc.components?.securitySchemes?.[scheme];
      const bearer = isObject(definition) && definition.scheme === 'bearer';
      const description = isObject(definition) ? text(definition.description) : '';
      return `<span class="who admin" title="${escapeHtml(`${scheme}${description ? `: ${description}` : ''}`)}">${bearer ? 'admin' : escapeHtml(scheme)}</span>`;
    })
    .join(' ');
}

function renderOperation(doc: OpenApiDocument, { method, path, op }: Operation): string {
  const body = isObject(op.requestBody) ? op.requestBody : undefined;
  const responses = isObject(op.responses) ? op.responses : {};
  const responseHtml = Object.entries(responses)
    .map(([status, response]) => {
      const r = isObject(response) ? response : {};
      return `<div class="response"><span class="status s${escapeHtml(status.slice(0, 1))}">${escapeHtml(status)}</span> ${escapeHtml(text(r.description))}${renderContent(doc, r.content, status.startsWith('2'))}</div>`;
    })
    .join('');
  return `<section class="op" id="${anchorOf(method, path)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code> ${whoMayCall(doc, op)}</h3>
${text(op.summary) ? `<p class="summary">${escapeHtml(op.summary)}</p>` : ''}${text(op.description) ? `<p>${escapeHtml(op.description)}</p>` : ''}
${renderParameters(op)}${body ? `<h4>Request body</h4>${renderContent(doc, body.content, true)}` : ''}
<h4>Responses</h4>${responseHtml}
</section>`;
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
header{padding:1.5rem 2rem;border-bottom:1px solid #d8dee4}main{display:flex}
nav{min-width:18rem;max-width:22rem;padding:1rem 1.5rem;border-right:1px solid #d8dee4;font-size:13px}
nav ul{list-style:none;padding-left:0}nav li{margin:.2rem 0}nav a{color:#0b57d0;text-decoration:none}
article{padding:1rem 2rem;flex:1;min-width:0}section.schema{border-left:3px solid #d8dee4;padding-left:1rem}section.op{border:1px solid #d8dee4;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
h2{margin-top:2rem;border-bottom:1px solid #d8dee4}h3{font-size:16px}h4{margin:.8rem 0 .3rem}
.method{display:inline-block;min-width:4.2rem;text-align:center;color:#fff;border-radius:4px;padding:0 .4rem;font-size:12px}
.get{background:#1a7f37}.post{background:#0b57d0}.delete{background:#cf222e}.put,.patch{background:#9a6700}
.who{font-size:11px;border-radius:10px;padding:0 .5rem;margin-left:.4rem;vertical-align:middle}
.public{background:#dafbe1}.admin{background:#fff8c5}.status{font-weight:600}.s2{color:#1a7f37}.s4,.s5{color:#cf222e}
.type{color:#57606a;margin:.2rem 0}.req{color:#cf222e;font-size:12px}.notes{color:#57606a;font-size:12px}
ul.props{margin:.2rem 0 .2rem 1rem;padding-left:1rem}.mt{font-size:12px;color:#57606a}
table{border-collapse:collapse}td,th{border:1px solid #d8dee4;padding:.2rem .5rem;text-align:left;font-size:13px}
code{font-family:ui-monospace,monospace}`;

/** The reference page for `doc`: one HTML string, no script, no external resource. */
export function renderApiReference(doc: OpenApiDocument): string {
  const operations = operationsOf(doc);
  const tagOrder = [...(doc.tags ?? []).map((t) => t.name), ...operations.map((o) => o.tag)];
  const tags = [...new Set(tagOrder)].filter((tag) => operations.some((o) => o.tag === tag));
  const tagDescription = (tag: string): string => text(doc.tags?.find((t) => t.name === tag)?.description);
  const nav = tags
    .map(
      (tag) =>
        `<li><strong>${escapeHtml(tag)}</strong><ul>${operations
          .filter((o) => o.tag === tag)
          .map(
            (o) =>
              `<li><a href="#${anchorOf(o.method, o.path)}">${o.method.toUpperCase()} ${escapeHtml(o.path)}</a></li>`,
          )
          .join('')}</ul></li>`,
    )
    .join('');
  const sections = tags
    .map(
      (tag) =>
        `<h2>${escapeHtml(tag)}</h2>${tagDescription(tag) ? `<p>${escapeHtml(tagDescription(tag))}</p>` : ''}${operations
          .filter((o) => o.tag === tag)
          .map((o) => renderOperation(doc, o))
          .join('')}`,
    )
    .join('');
  const servers = (doc.servers ?? []).map((s) => `<code>${escapeHtml(s.url)}</code>`).join(', ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.info.title)} — API reference</title><style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
${doc.info.description ? `<p>${escapeHtml(doc.info.description)}</p>` : ''}${servers ? `<p>Server: ${servers}</p>` : ''}
<p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI ${escapeHtml(doc.openapi)}).</p></header>
<main><nav><ul>${nav}<li><a href="#schemas"><strong>Schemas</strong></a></li></ul></nav><article>${sections}${renderComponents(doc)}</article></main></body></html>`;
}
