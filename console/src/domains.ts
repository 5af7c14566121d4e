/**
 * Where an agent's authority applies (docs/protocol.md §Where authority applies): the rule,
 * stated wherever domains are entered or shown, and a check of one target against an agent's
 * domains. The check runs the wallet's own `domainCovers` — the function the verifier and the
 * issuer's token endpoint run — so what the console answers is what they decide.
 */
import { DOMAIN_RULE_SUMMARY, domainCovers } from '../../wallet/vc/domains.ts';
import { field, h, replace } from './dom.ts';

/** The hint of a field where domains are entered. */
export const DOMAINS_HINT = `Where the agent may act, space-separated. ${DOMAIN_RULE_SUMMARY}`;

/** The answer for one target: which entry covers it, or that none does. */
function verdict(domains: readonly string[], target: string): string {
  const entry = domains.find((d) => domainCovers(d, target));
  return entry === undefined
    ? `Not covered: no entry covers ${target}. A verifier or the token endpoint refuses it (TARGET_MISMATCH).`
    : `Covered by ${entry}.`;
}

/** A form that says whether `domains` cover a resource URI (or another target) the operator types. */
function coverageCheck(domains: readonly string[]): HTMLElement {
  const target = h('input', {
    type: 'text',
    name: 'target',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'https://files.example.com/mcp',
  });
  target.id = 'coverage-target';
  const answer = h('p', { role: 'status', id: 'coverage-answer' });
  const check = (event: Event) => {
    event.preventDefault();
    const value = target.value.trim();
    replace(answer, value === '' ? '' : verdict(domains, value));
  };
  return h(
    'form',
    { class: 'card', onSubmit: check },
    field('Resource URI', target, 'A resource server URI (an RFC 8707 resource) or a verifier name'),
    h('button', { type: 'submit', class: 'secondary' }, 'Check'),
    answer,
  );
}

/** The agent page's section: its domains, the rule, and the check. */
export function domainsSection(domains: readonly string[] | null | undefined): HTMLElement {
  const body =
    domains === null || domains === undefined
      ? [h('p', {}, 'Any target: this agent’s credential names no domains.')]
      : [
          h(
            'p',
            {},
            domains.length === 0 ? 'No target: the list of domains is empty.' : `Domains: ${domains.join(' ')}`,
          ),
          h('p', { class: 'notice' }, DOMAIN_RULE_SUMMARY),
          coverageCheck(domains),
        ];
  return h(
    'section',
    { 'aria-labelledby': 'h-where' },
    h('h2', { id: 'h-where' }, 'Where this authority applies'),
    ...body,
  );
}
