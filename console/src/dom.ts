/**
 * The console's whole "framework": `h()` builds an element from a tag, properties and
 * children. Text always goes through text nodes (never innerHTML), so nothing the API returns
 * can become markup.
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: Event) => void;
export type Props = Record<string, string | number | boolean | Handler | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'value' && 'value' in element) (element as HTMLInputElement).value = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A responsive table: below 700 px each row stacks, its cells labelled by `data-label`. */
export function table(caption: string, headers: string[], rows: Child[][], empty = 'Nothing to show.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((label) => h('th', { scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((cell, i) => h('td', { 'data-label': headers[i] ?? '' }, cell)),
          ),
        ),
      ),
    ),
  );
}

/** A labelled form field. */
export function field(
  label: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  const id = input.id || `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  input.id = id;
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint === undefined ? null : h('small', { id: hintId }, hint),
  );
}

/** A definition list of [term, value] pairs; pairs whose value is null are left out. */
export function facts(pairs: [string, Child][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs.filter(([, value]) => value !== null).map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

/** An identifier shown in full, wrapping anywhere. */
export function fullId(value: string): HTMLElement {
  return h('code', { class: 'wrap' }, value);
}

export function badge(text: string, tone: 'ok' | 'bad' | 'warn' | 'muted' = 'muted'): HTMLElement {
  return h('span', { class: `badge ${tone}` }, text);
}

export function stateBadge(state: string): HTMLElement {
  const tone =
    state === 'active' || state === 'outstanding'
      ? 'ok'
      : state === 'revoked' || state === 'expired'
        ? 'bad'
        : state === 'suspended'
          ? 'warn'
          : 'muted';
  return badge(state, tone);
}

export function formatTime(iso: string | undefined): string {
  if (iso === undefined) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, 'Z');
}

/** Middle-ellipsis for long identifiers; the full value stays in `title` and the copy of the text. */
export function shortId(value: string, keep = 28): HTMLElement {
  const shown = value.length <= keep * 2 + 1 ? value : `${value.slice(0, keep)}…${value.slice(-12)}`;
  return h('code', { class: 'id', title: value }, shown);
}
