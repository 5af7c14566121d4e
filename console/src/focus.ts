/**
 * Focus that survives a re-render. Views redraw after each action (a revoked credential loses
 * its buttons, a new page of results replaces the old), which removes the element that had focus
 * and drops keyboard and screen-reader users at the top of the document (WCAG 2.4.3 Focus
 * Order). When that happens, focus moves to the redrawn control that stands for the old one —
 * same id, same accessible label, or same role and text — and otherwise to the view's heading.
 */

/** What identifies a control across a redraw, most specific first. */
function matchers(element: HTMLElement): ((candidate: HTMLElement) => boolean)[] {
  const label = element.getAttribute('aria-label');
  const text = element.textContent?.trim();
  return [
    (c) => element.id !== '' && c.id === element.id,
    (c) => label !== null && c.getAttribute('aria-label') === label,
    (c) => text !== undefined && text !== '' && c.tagName === element.tagName && c.textContent?.trim() === text,
  ];
}

function replacementFor(lost: HTMLElement, root: HTMLElement): HTMLElement | null {
  const candidates = [
    ...root.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea, [tabindex]'),
  ].filter((c) => !(c as HTMLButtonElement).disabled);
  for (const matches of matchers(lost)) {
    const found = candidates.find(matches);
    if (found) return found;
  }
  return root.querySelector<HTMLElement>('h1[tabindex]');
}

/** Watches `root` for the rest of the page's life: see the module note. */
export function keepFocusAcrossRenders(root: HTMLElement): void {
  let focused: HTMLElement | null = null;
  document.addEventListener('focusin', (event) => {
    if (event.target instanceof HTMLElement) focused = event.target;
  });
  new MutationObserver(() => {
    const lost = focused;
    if (
      lost === null ||
      lost.isConnected ||
      (document.activeElement !== null && document.activeElement !== document.body)
    )
      return;
    focused = null;
    replacementFor(lost, root)?.focus();
  }).observe(root, { childList: true, subtree: true });
}
