/** The page's building blocks: elements, ✓/✗ check lists, collapsible JSON, an outcome line. */

/** One line of a check list: passed, failed, or not reached ('skipped'). */
export interface Check {
  check: string;
  ok: boolean | 'skipped';
  detail?: string;
}

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The element with this id, which the page (demo/index.html) always has. */
export function byId(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found;
}

export function renderChecks(checks: readonly Check[]): HTMLElement {
  const list = element('ul', { class: 'checks' });
  for (const c of checks) {
    const item = element('li', { 'data-ok': String(c.ok) });
    item.append(
      element('span', { class: 'mark', 'aria-hidden': 'true' }, c.ok === true ? '✓' : c.ok === false ? '✗' : '–'),
    );
    item.append(element('span', {}, `${c.ok === true ? '' : c.ok === false ? 'FAILED: ' : 'not reached: '}${c.check}`));
    if (c.detail) item.append(element('span', { class: 'detail' }, ` — ${c.detail}`));
    list.append(item);
  }
  return list;
}

export function renderJson(title: string, value: unknown, open = false): HTMLElement {
  const details = element('details');
  if (open) details.open = true;
  details.append(element('summary', {}, title));
  details.append(element('pre', {}, JSON.stringify(value, null, 2)));
  return details;
}

export function renderOutcome(id: string, verdict: 'approved' | 'denied', text: string): HTMLElement {
  return element('p', { class: 'outcome', id, 'data-verdict': verdict, role: 'status' }, text);
}
