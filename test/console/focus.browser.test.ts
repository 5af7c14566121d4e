// The console's focus keeper (console/src/focus.ts) in a real DOM: when a redraw removes the
// focused control, focus moves to the control that stands for it — same id, same aria-label,
// or same tag and text — else to the view's heading; never to a disabled control, and never
// away from where the user has already moved it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keepFocusAcrossRenders } from '../../console/src/focus.ts';

let root: HTMLElement;

/** Replaces the view's content, as each console view does when it redraws. */
function render(html: string): void {
  root.innerHTML = `<h1 tabindex="-1">View</h1>${html}`;
}

function focus(selector: string): void {
  const element = root.querySelector<HTMLElement>(selector);
  if (!element) throw new Error(`no ${selector}`);
  element.focus();
  expect(document.activeElement).toBe(element);
}

/** MutationObserver callbacks run as microtasks after the redraw. */
const observed = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** What has focus now, described by what a test can compare. */
function focused(): string {
  const active = document.activeElement as HTMLElement | null;
  if (active === null || active === document.body) return 'body';
  return `${active.tagName.toLowerCase()}${active.id ? `#${active.id}` : ''} ${active.getAttribute('aria-label') ?? active.textContent?.trim() ?? ''}`.trim();
}

describe('keepFocusAcrossRenders', () => {
  beforeAll(() => {
    root = document.createElement('main');
    document.body.append(root);
    keepFocusAcrossRenders(root);
  });
  afterAll(() => root.remove());
  beforeEach(() => {
    render('');
    (document.activeElement as HTMLElement | null)?.blur();
  });

  it('moves focus to the redrawn control with the same id', async () => {
    render('<button id="next">Next page</button><button>Other</button>');
    focus('#next');
    render('<button>Other</button><button id="next">Next page (3)</button>');
    await observed();
    expect(focused()).toBe('button#next Next page (3)');
  });

  it('else to the control with the same aria-label', async () => {
    render(
      '<button aria-label="Revoke urn:uuid:1">Revoke</button><button aria-label="Revoke urn:uuid:2">Revoke</button>',
    );
    focus('[aria-label="Revoke urn:uuid:2"]');
    render(
      '<button aria-label="Revoke urn:uuid:1">Revoke</button><button aria-label="Revoke urn:uuid:2">Revoke</button>',
    );
    await observed();
    expect(focused()).toBe('button Revoke urn:uuid:2');
  });

  it('else to a control of the same tag with the same text', async () => {
    render('<a href="#a">Audit</a><button>Refresh</button>');
    focus('button');
    render('<button>Audit</button><a href="#a">Refresh</a><button> Refresh </button>');
    await observed();
    const active = document.activeElement as HTMLElement;
    expect(active.tagName).toBe('BUTTON');
    expect(active.textContent?.trim()).toBe('Refresh');
  });

  it('skips disabled controls, then falls back to the view heading', async () => {
    render('<button id="suspend">Suspend</button>');
    focus('#suspend');
    render('<button id="suspend" disabled>Suspend</button>');
    await observed();
    expect(focused()).toBe('h1 View');
  });

  it('falls back to the heading when nothing stands for the lost control', async () => {
    render('<button>Revoke</button>');
    focus('button');
    render('<p>Revoked.</p>');
    await observed();
    expect(focused()).toBe('h1 View');
  });

  it('leaves focus alone when the user already moved it, or the control is still there', async () => {
    const outside = document.createElement('input');
    document.body.append(outside);
    try {
      render('<button id="a">A</button><button id="b">B</button>');
      focus('#a');
      outside.focus();
      render('<button id="a">A</button>');
      await observed();
      expect(document.activeElement).toBe(outside);

      focus('#a');
      root.append(document.createElement('p')); // a redraw that keeps the focused control
      await observed();
      expect(focused()).toBe('button#a A');
    } finally {
      outside.remove();
    }
  });
});
