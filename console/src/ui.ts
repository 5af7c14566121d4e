/** Feedback shared by every view: readable API errors, a polite status line, confirmations. */
import { ConsoleApiError } from './api.ts';
import { h, replace } from './dom.ts';

/** A readable error: what the issuer said, with its code (operators search docs by code). */
export function errorMessage(error: unknown): HTMLElement {
  if (error instanceof ConsoleApiError) {
    return h(
      'div',
      { class: 'error', role: 'alert' },
      h('strong', {}, error.status === 0 ? 'Unreachable' : `Refused (${error.status})`),
      ' ',
      h('code', {}, error.code),
      ' — ',
      error.message,
    );
  }
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('strong', {}, 'Error'),
    ' ',
    error instanceof Error ? error.message : String(error),
  );
}

/** Announces a completed action in the shell's live region. */
export function announce(message: string): void {
  const region = document.getElementById('status');
  if (region) replace(region, message);
}

/**
 * Runs an action; an error is shown in `errorSlot` (cleared first) instead of being thrown.
 * `busy`, the button that started it, stays disabled until it settles, so that a double click
 * cannot mint two tokens or send one renewal twice (a disabled default button also stops
 * implicit submission).
 */
export async function attempt<T>(
  errorSlot: Element,
  action: () => Promise<T>,
  busy: HTMLButtonElement | null = null,
): Promise<T | undefined> {
  replace(errorSlot);
  // Disabling a focused button drops focus to <body>: it comes back when the button does.
  const hadFocus = busy !== null && document.activeElement === busy;
  if (busy) busy.disabled = true;
  try {
    return await action();
  } catch (error) {
    replace(errorSlot, errorMessage(error));
    return undefined;
  } finally {
    if (busy) {
      busy.disabled = false;
      if (hadFocus && busy.isConnected) busy.focus();
    }
  }
}

/** The button that started `event`: the clicked one, or the form's submitter. */
export function sourceButton(event: Event): HTMLButtonElement | null {
  const source = (event as SubmitEvent).submitter ?? event.currentTarget;
  return source instanceof HTMLButtonElement ? source : null;
}

/**
 * A modal confirmation (<dialog>: focus is trapped and Escape cancels). Focus starts on Cancel,
 * so Enter alone never confirms a destructive act.
 */
export function confirmAction(title: string, body: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const confirm = h('button', { type: 'button', class: 'danger' }, confirmLabel);
    const dialog = h(
      'dialog',
      { 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-body' },
      h('h2', { id: 'confirm-title' }, title),
      h('p', { id: 'confirm-body' }, body),
      h('div', { class: 'actions' }, cancel, confirm),
    );
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const close = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(answer);
    };
    cancel.addEventListener('click', () => close(false));
    confirm.addEventListener('click', () => close(true));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

export function heading(title: string, ...extra: (Node | string)[]): HTMLElement {
  return h('div', { class: 'view-head' }, h('h1', { tabindex: -1 }, title), ...extra);
}

export function loading(): HTMLElement {
  return h('p', { class: 'loading', role: 'status' }, 'Loading…');
}

export function pretty(value: unknown): HTMLElement {
  return h('pre', { class: 'json', tabindex: 0 }, JSON.stringify(value, null, 2));
}
