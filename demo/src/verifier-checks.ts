/** The service-worker verifier's checks as the page lists them: in the order it runs them, each labelled. */
import type { CheckOutcome } from '../../wallet/vc/verify.ts';
import type { Check } from './dom.ts';

/** The verifier's checks in the order it runs them (wallet/vc/verify.ts). */
const CHECK_ORDER = ['presentation', 'dids', 'credentials', 'chain', 'scopes', 'status', 'replay'] as const;
const CHECK_LABELS: Record<(typeof CHECK_ORDER)[number], string> = {
  presentation: "presentation: holder's signature, challenge, domain = target, lifetime",
  dids: 'DIDs resolved (issuer did:web, agents did:key, provider, user)',
  credentials: "credentials' signatures and validity",
  chain: 'delegation chain: root from the trusted issuer, each link narrower (scopes, depth, domains, time); grants',
  scopes: 'scopes: effective scopes cover the route; target in the leaf’s domains',
  status: 'status lists: not revoked (issuer’s list and provider’s list)',
  replay: 'replay: challenge and presentation id not seen before (last: a refusal uses up nothing)',
};

/** The verifier's own outcomes as ✓/✗ lines, checks it did not reach shown as such. */
export function verifierChecks(outcomes: readonly CheckOutcome[]): Check[] {
  return CHECK_ORDER.map((name) => {
    const outcome = outcomes.find((o) => o.check === name);
    if (!outcome) return { check: CHECK_LABELS[name], ok: 'skipped' as const };
    return {
      check: CHECK_LABELS[name],
      ok: outcome.ok,
      ...(outcome.ok ? {} : { detail: `${outcome.reason ?? ''}: ${outcome.message ?? ''}` }),
    };
  });
}
