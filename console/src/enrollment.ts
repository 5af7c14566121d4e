/**
 * Enrollment: mint a token (shown once, then only its id and state ever again) and list
 * tokens by state. The minted value lives in this view's DOM only: it is not stored, and
 * leaving the view drops it.
 */
import { call, type TokenState } from './api.ts';
import { field, formatTime, h, replace, shortId, stateBadge, table } from './dom.ts';
import { DOMAINS_HINT } from './domains.ts';
import { announce, attempt, heading, loading, sourceButton } from './ui.ts';

const words = (value: string): string[] => value.split(/[\s,]+/).filter((w) => w !== '');

function tokenPanel(minted: { tokenId: string; token: string; expiresAt: string }): HTMLElement {
  const value = h('input', {
    type: 'text',
    readonly: true,
    value: minted.token,
    class: 'secret',
    'aria-describedby': 'token-note',
  });
  value.id = 'minted-token';
  const copied = h('span', { role: 'status', class: 'copied' });
  const copy = async () => {
    value.select();
    try {
      await navigator.clipboard.writeText(minted.token);
      replace(copied, 'Copied to the clipboard.');
    } catch {
      replace(copied, 'The browser refused clipboard access: the token is selected, press Ctrl+C (⌘C).');
    }
  };
  return h(
    'section',
    { class: 'once', 'aria-labelledby': 'h-minted' },
    h('h2', { id: 'h-minted' }, 'Token minted'),
    h(
      'p',
      { id: 'token-note' },
      h('strong', {}, 'Shown once.'),
      ' Copy it now and hand it to the agent: the issuer keeps only its hash.',
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'minted-token' }, 'Enrollment token'),
      h('div', { class: 'inline' }, value, h('button', { type: 'button', onClick: () => void copy() }, 'Copy')),
    ),
    copied,
    h(
      'p',
      {},
      'Expires ',
      h('time', { datetime: minted.expiresAt }, formatTime(minted.expiresAt)),
      ` · id ${minted.tokenId}`,
    ),
  );
}

/** The token list with its state filter and "Load more"; `load()` reads its first page again. */
function tokenList(): { section: HTMLElement; load: () => Promise<void> } {
  const list = h('div', {}, loading());
  const listErrors = h('div');
  const stateFilter = h(
    'select',
    { name: 'state' },
    h('option', { value: '' }, 'All'),
    h('option', { value: 'outstanding' }, 'Outstanding'),
    h('option', { value: 'used' }, 'Used'),
    h('option', { value: 'expired' }, 'Expired'),
  );
  stateFilter.id = 'token-state';
  let tokens: TokenState[] = [];
  let nextCursor: string | undefined;

  const renderList = () => {
    const rows = tokens.map((t) => [
      h('code', {}, t.tokenId),
      stateBadge(t.state),
      t.requestedScopes.join(' '),
      String(t.maxDelegationDepth),
      t.requestedDomains.join(' '),
      formatTime(t.expiresAt),
      t.agentDid ? h('a', { href: `#/agents/${encodeURIComponent(t.agentDid)}` }, shortId(t.agentDid, 16)) : '—',
    ]);
    replace(
      list,
      table(
        'Enrollment tokens',
        ['Token id', 'State', 'Scopes', 'Max depth', 'Domains', 'Expires', 'Agent'],
        rows,
        'No token in this state.',
      ),
      nextCursor === undefined
        ? null
        : h('button', { type: 'button', class: 'secondary', onClick: () => void loadTokens(true) }, 'Load more'),
    );
  };

  const loadTokens = async (more = false) => {
    const page = await attempt(listErrors, () =>
      call('listEnrollmentTokens', {
        query: {
          // The options are the token states, and "All" ('', sent as no filter).
          state: (stateFilter.value || undefined) as TokenState['state'] | undefined,
          cursor: more ? nextCursor : undefined,
          limit: 50,
        },
      }),
    );
    if (!page) return;
    tokens = more ? [...tokens, ...page.tokens] : page.tokens;
    nextCursor = page.nextCursor;
    renderList();
  };
  stateFilter.addEventListener('change', () => void loadTokens());
  const section = h(
    'section',
    { 'aria-labelledby': 'h-tokens' },
    h('h2', { id: 'h-tokens' }, 'Tokens'),
    h('div', { class: 'field inline' }, h('label', { for: 'token-state' }, 'Show'), stateFilter),
    listErrors,
    list,
  );
  return { section, load: () => loadTokens() };
}

/** The mint form; a minted token is shown once in `mintedSlot`, then the list is read again. */
function mintForm(mintedSlot: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const errors = h('div');
  const scopes = h('input', { type: 'text', name: 'scopes', required: true, autocomplete: 'off', value: 'files:read' });
  const depth = h('input', { type: 'number', name: 'depth', required: true, min: 0, max: 16, value: 1 });
  const domains = h('input', {
    type: 'text',
    name: 'domains',
    required: true,
    autocomplete: 'off',
    placeholder: 'files.example.com',
  });
  const ttl = h('input', { type: 'number', name: 'ttl', required: true, min: 10, max: 604800, value: 900 });
  const mint = async (event: Event) => {
    event.preventDefault();
    const minted = await attempt(
      errors,
      () =>
        call('mintEnrollmentToken', {
          body: {
            requestedScopes: words(scopes.value),
            maxDelegationDepth: Number(depth.value),
            requestedDomains: words(domains.value),
            ttlSeconds: Number(ttl.value),
          },
        }),
      sourceButton(event),
    );
    if (!minted) return;
    replace(mintedSlot, tokenPanel(minted));
    announce('Enrollment token minted: copy it now, it is shown once.');
    document.getElementById('minted-token')?.focus();
    await reload();
  };
  return h(
    'form',
    { class: 'card', onSubmit: (e: Event) => void mint(e) },
    h('h2', {}, 'Mint an enrollment token'),
    field('Scopes', scopes, 'Space- or comma-separated, e.g. files:read files:write'),
    field('Maximum delegation depth', depth, '0 = the agent may not delegate'),
    field('Domains', domains, DOMAINS_HINT),
    field('Token lifetime (seconds)', ttl, '10 s to 7 days; default 15 minutes'),
    errors,
    h('button', { type: 'submit' }, 'Mint token'),
  );
}

export function renderEnrollment(root: HTMLElement): void {
  const mintedSlot = h('div');
  const tokens = tokenList();
  replace(root, heading('Enrollment'), mintForm(mintedSlot, tokens.load), mintedSlot, tokens.section);
  void tokens.load();
}
