// The console's "Where this authority applies" section (console/src/domains.ts) in a real DOM:
// it states the rule of docs/protocol.md §Where authority applies and answers, for a target the
// operator types, what the verifier and the token endpoint would decide — in Chromium's own URL
// parser, which is what the console runs on.
import { afterEach, describe, expect, it } from 'vitest';
import { domainsSection } from '../../console/src/domains.ts';

let section: HTMLElement | undefined;

function mount(domains: string[] | undefined): HTMLElement {
  section = domainsSection(domains);
  document.body.append(section);
  return section;
}

/** Types `target` into the check and submits it; the answer shown. */
function check(root: HTMLElement, target: string): string {
  const input = root.querySelector<HTMLInputElement>('#coverage-target');
  const form = root.querySelector('form');
  if (!input || !form) throw new Error('no coverage check in the section');
  input.value = target;
  form.requestSubmit();
  return root.querySelector('#coverage-answer')?.textContent ?? '';
}

afterEach(() => section?.remove());

describe('console: where an agent’s authority applies', () => {
  it('answers by the one rule: the host covers https URIs at it, not subdomains, http or other ports', () => {
    const root = mount(['files.example.com', 'https://mail.example.com/mcp']);
    expect(root.textContent).toContain('no subdomain');
    expect(root.querySelector('label[for="coverage-target"]')?.textContent).toBe('Resource URI');
    expect(check(root, 'https://files.example.com/mcp')).toBe('Covered by files.example.com.');
    expect(check(root, 'https://FILES.example.com:443/x')).toBe('Covered by files.example.com.');
    expect(check(root, 'https://mail.example.com/mcp')).toBe('Covered by https://mail.example.com/mcp.');
    for (const outside of [
      'https://sub.files.example.com/mcp',
      'http://files.example.com/mcp',
      'https://files.example.com:8443/mcp',
      'https://user@files.example.com/mcp',
      'https://mail.example.com/mcp/tools',
    ])
      expect(check(root, outside), outside).toContain(`Not covered: no entry covers ${outside}`);
  });

  it('says when an agent has no domain limit, and offers no check then', () => {
    const root = mount(undefined);
    expect(root.textContent).toContain('Any target');
    expect(root.querySelector('form')).toBeNull();
  });
});
