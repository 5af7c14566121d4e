/**
 * A step on the page: its section, one button per action, and the result area. The section's
 * `data-state` says how far it got (pending, running, partial, done, failed), which the
 * end-to-end test reads.
 */
import { isMandateError } from '../../wallet/crypto/errors.ts';
import { element } from './dom.ts';
import type { StepButton, StepDefinition, StepView } from './story.ts';

function errorText(error: unknown): string {
  if (isMandateError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** `run-1`, or `run-6a`, `run-6b` for a step with several buttons. */
function buttonId(stepNumber: number, step: StepDefinition, index: number): string {
  return `run-${stepNumber}${step.buttons.length > 1 ? String.fromCharCode(97 + index) : ''}`;
}

function bindButton(button: HTMLButtonElement, action: StepButton, view: StepView, onSuccess: () => void): void {
  const { section, body } = view;
  button.addEventListener('click', () => {
    button.disabled = true;
    section.dataset.state = 'running';
    // A retry starts clean: the last attempt's error no longer applies.
    if (action.repeatable) body.replaceChildren();
    else for (const stale of body.querySelectorAll('p.error')) stale.remove();
    action.run(view).then(
      () => {
        onSuccess();
        if (action.repeatable) button.disabled = false;
      },
      (error: unknown) => {
        section.dataset.state = 'failed';
        body.append(element('p', { class: 'error', role: 'alert' }, errorText(error)));
        button.disabled = false;
      },
    );
  });
}

export function renderStep(step: StepDefinition, stepNumber: number): HTMLElement {
  const section = element('section', {
    class: 'step',
    id: `step-${stepNumber}`,
    'data-state': 'pending',
    'aria-labelledby': `step-${stepNumber}-title`,
  });
  section.append(element('h2', { id: `step-${stepNumber}-title` }, step.title), element('p', {}, step.text));
  const body = element('div', { class: 'result', 'aria-live': 'polite' });
  const view: StepView = { section, buttons: [], body };
  const succeeded = new Set<number>();
  step.buttons.forEach((action, j) => {
    const button = element('button', { type: 'button', id: buttonId(stepNumber, step, j) }, action.label);
    bindButton(button, action, view, () => {
      succeeded.add(j);
      section.dataset.state = succeeded.size === step.buttons.length ? 'done' : 'partial';
    });
    view.buttons.push(button);
    section.append(button);
  });
  section.append(body);
  return section;
}
