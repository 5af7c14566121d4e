/**
 * The operator console's shell: sign-in, navigation and a hash router (#/agents, #/agents/<did>,
 * #/enrollment, #/credentials, #/dids, #/dids/<did>, #/audit). The admin key never enters
 * the URL; see api.ts for where it is kept.
 */
import { adminKey, call, SIGNED_OUT_EVENT } from './api.ts';
import { renderAgent, renderAgents } from './agents.ts';
import { renderAudit } from './audit.ts';
import { renderCredentials } from './credentials.ts';
import { renderDid, renderDids } from './dids.ts';
import { h, replace } from './dom.ts';
import { renderEnrollment } from './enrollment.ts';
import { keepFocusAcrossRenders } from './focus.ts';
import { attempt } from './ui.ts';

const SECTIONS = [
  ['agents', 'Agents'],
  ['enrollment', 'Enrollment'],
  ['credentials', 'Credentials'],
  ['dids', 'DIDs'],
  ['audit', 'Audit trail'],
] as const;

const app = document.getElementById('app') as HTMLElement;
let leaveView: (() => void) | undefined;

function renderSignIn(notice?: string): void {
  leaveView?.();
  leaveView = undefined;
  const key = h('input', {
    type: 'password',
    name: 'adminKey',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
  });
  key.id = 'admin-key';
  key.setAttribute('aria-describedby', 'admin-key-hint');
  const errors = h('div');
  const signIn = async (event: Event) => {
    event.preventDefault();
    const candidate = key.value.trim();
    // Any admin-only read proves the key; this one is cheap and returns no secret.
    const ok = await attempt(errors, () => call('listConsoleStatusLists', {}, { key: candidate }));
    if (ok === undefined) return;
    adminKey.set(candidate);
    key.value = '';
    if (location.hash === '' || location.hash === '#/') location.hash = '#/agents';
    renderShell();
  };
  replace(
    app,
    h(
      'main',
      { id: 'main', class: 'signin' },
      h(
        'form',
        { class: 'card', onSubmit: (e: Event) => void signIn(e) },
        h('h1', {}, 'Mandate operator console'),
        notice ? h('p', { class: 'notice', role: 'status' }, notice) : null,
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'admin-key' }, 'Admin API key'),
          key,
          h(
            'small',
            { id: 'admin-key-hint' },
            'SERVICE_ADMIN_API_KEY. A development issuer (npm start) generates it on first start and keeps it in ',
            h('code', {}, 'data/issuer-secrets.json'),
            ' (member ',
            h('code', {}, 'adminApiKey'),
            '), beside its database. Kept in this tab only, until you sign out or close it.',
          ),
        ),
        errors,
        h('button', { type: 'submit' }, 'Sign in'),
      ),
    ),
  );
  key.focus();
}

function signOut(): void {
  adminKey.clear();
  renderSignIn('You are signed out.');
}

function route(): { section: string; id?: string; params: URLSearchParams } {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = hash.split('?', 2);
  const [section = 'agents', ...rest] = path.split('/');
  const id = rest.length > 0 ? decodeURIComponent(rest.join('/')) : undefined;
  return { section: section || 'agents', ...(id === undefined ? {} : { id }), params: new URLSearchParams(search) };
}

function renderView(view: HTMLElement): void {
  leaveView?.();
  leaveView = undefined;
  const { section, id, params } = route();
  for (const link of document.querySelectorAll('nav.sections a')) {
    if (link.getAttribute('data-section') === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (section === 'agents' && id !== undefined) renderAgent(view, id);
  else if (section === 'agents') renderAgents(view);
  else if (section === 'enrollment') renderEnrollment(view);
  else if (section === 'credentials') renderCredentials(view);
  else if (section === 'dids' && id !== undefined) renderDid(view, id);
  else if (section === 'dids') renderDids(view);
  else if (section === 'audit') leaveView = renderAudit(view, params);
  else replace(view, h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '#/agents' }, 'Go to the agents')));
}

function renderShell(): void {
  const view = h('main', { id: 'main', tabindex: -1 });
  replace(
    app,
    h(
      'header',
      { class: 'top' },
      h('span', { class: 'brand' }, 'Mandate'),
      h(
        'nav',
        { class: 'sections', 'aria-label': 'Sections' },
        h(
          'ul',
          {},
          SECTIONS.map(([slug, label]) => h('li', {}, h('a', { href: `#/${slug}`, 'data-section': slug }, label))),
        ),
      ),
      h('button', { type: 'button', class: 'secondary', onClick: signOut }, 'Sign out'),
    ),
    h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
    view,
  );
  renderView(view);
}

window.addEventListener('hashchange', () => {
  const view = document.querySelector<HTMLElement>('main#main[tabindex]');
  // The skip link's "#main" is an in-page anchor, not a route.
  if (adminKey.get() === null || !view || !location.hash.startsWith('#/')) return;
  // A message about the previous view's action would be stale here.
  document.getElementById('status')?.replaceChildren();
  renderView(view);
  view.querySelector<HTMLElement>('h1')?.focus();
});
window.addEventListener(SIGNED_OUT_EVENT, () => renderSignIn('The issuer refused the admin key: sign in again.'));

keepFocusAcrossRenders(app);
if (adminKey.get() === null) renderSignIn();
else renderShell();
