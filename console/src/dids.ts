/** DIDs hosted or tracked here: service endpoints (add, remove) and deactivation (confirmed). */
import { api, enc, type HostedDid } from './api.ts';
import { facts, field, formatTime, fullId, h, replace, shortId, stateBadge, table } from './dom.ts';
import { announce, attempt, confirmAction, heading, loading, pretty, sourceButton } from './ui.ts';

export function renderDids(root: HTMLElement): void {
  const errors = h('div');
  const list = h('div', {}, loading());
  replace(root, heading('DIDs'), errors, list);
  void (async () => {
    const page = await attempt(errors, () => api<{ dids: HostedDid[] }>('/v1/dids?limit=200'));
    if (!page) return replace(list);
    replace(
      list,
      table(
        'DIDs',
        ['DID', 'Kind', 'Key held here', 'State', 'Updated'],
        page.dids.map((d) => [
          h('a', { href: `#/dids/${enc(d.did)}` }, shortId(d.did)),
          d.kind,
          d.serverHeldKey ? 'yes' : 'no',
          stateBadge(d.deactivated ? 'deactivated' : 'active'),
          formatTime(d.updated),
        ]),
        'No DID is hosted here.',
      ),
    );
  })();
}

function endpointText(endpoint: unknown): string {
  return typeof endpoint === 'string' ? endpoint : JSON.stringify(endpoint);
}

export function renderDid(root: HTMLElement, did: string): void {
  const errors = h('div');
  const body = h('div', {}, loading());
  replace(root, h('p', {}, h('a', { href: '#/dids' }, '← All DIDs')), heading('DID'), errors, body);

  const load = async () => {
    const page = await attempt(errors, () => api<{ dids: HostedDid[] }>('/v1/dids?limit=500'));
    const hosted = page?.dids.find((d) => d.did === did);
    if (!hosted) {
      if (page) replace(errors, h('div', { class: 'error', role: 'alert' }, 'This DID is not hosted or tracked here.'));
      return replace(body);
    }
    const services = hosted.didDocument.service ?? [];
    // What the issuer would refuse is not offered: its own DID is managed by its configuration
    // (ISSUER_DID_PROTECTED), and a did:key document cannot express services.
    const ownDid = hosted.kind === 'issuer';
    const editable = !hosted.deactivated && !ownDid && hosted.did.startsWith('did:web:');
    const serviceId = h('input', { type: 'text', name: 'id', autocomplete: 'off', placeholder: 'files' });
    const serviceType = h('input', {
      type: 'text',
      name: 'type',
      required: true,
      autocomplete: 'off',
      placeholder: 'LinkedDomains',
    });
    const serviceEndpoint = h('input', {
      type: 'url',
      name: 'endpoint',
      required: true,
      autocomplete: 'off',
      placeholder: 'https://files.example.com/',
    });

    const remove = async (event: Event, id: string) => {
      const fragment = id.includes('#') ? id.slice(id.indexOf('#') + 1) : id;
      const done = await attempt(
        errors,
        () => api<HostedDid>(`/v1/dids/${enc(did)}/services/${enc(fragment)}`, { method: 'DELETE' }),
        sourceButton(event),
      );
      if (done) {
        announce(`Service ${id} removed.`);
        await load();
      }
    };
    const add = async (event: Event) => {
      event.preventDefault();
      const done = await attempt(
        errors,
        () =>
          api<HostedDid>(`/v1/dids/${enc(did)}/services`, {
            body: {
              ...(serviceId.value.trim() ? { id: serviceId.value.trim() } : {}),
              type: serviceType.value.trim(),
              serviceEndpoint: serviceEndpoint.value.trim(),
            },
          }),
        sourceButton(event),
      );
      if (done) {
        announce('Service added.');
        await load();
      }
    };
    const deactivate = async () => {
      const sure = await confirmAction(
        'Deactivate this DID?',
        `${did} will be deactivated: its document stops being served and every verification through this issuer refuses it (DID_DEACTIVATED). This cannot be undone.`,
        'Deactivate DID',
      );
      if (!sure) return;
      const done = await attempt(errors, () =>
        api<HostedDid>(`/v1/dids/${enc(did)}/deactivate`, {
          body: { reason: 'deactivated by an operator in the console' },
        }),
      );
      if (done) {
        announce(`${did} deactivated.`);
        await load();
      }
    };

    replace(
      body,
      facts([
        ['DID', fullId(did)],
        ['Kind', hosted.kind],
        ['State', stateBadge(hosted.deactivated ? 'deactivated' : 'active')],
      ]),
      h(
        'section',
        { 'aria-labelledby': 'h-services' },
        h('h2', { id: 'h-services' }, 'Service endpoints'),
        table(
          'Service endpoints',
          ['Id', 'Type', 'Endpoint', 'Actions'],
          services.map((s) => [
            h('code', {}, s.id),
            Array.isArray(s.type) ? s.type.join(' ') : s.type,
            fullId(endpointText(s.serviceEndpoint)),
            !editable
              ? '—'
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary',
                    'aria-label': `Remove service ${s.id}`,
                    onClick: (e: Event) => void remove(e, s.id),
                  },
                  'Remove',
                ),
          ]),
          'No service endpoint.',
        ),
        !editable
          ? null
          : h(
              'form',
              { class: 'card', onSubmit: (e: Event) => void add(e) },
              h('h3', {}, 'Add a service endpoint'),
              field('Id (optional)', serviceId, 'A fragment such as files; default a random one'),
              field('Type', serviceType),
              field('Endpoint URL', serviceEndpoint),
              h('button', { type: 'submit' }, 'Add service'),
            ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'h-document' },
        h('h2', { id: 'h-document' }, 'DID document'),
        pretty(hosted.didDocument),
      ),
      ownDid
        ? h(
            'p',
            { class: 'notice' },
            "This is the issuer's own DID: its document follows the issuer's signing key and configuration (docs/operations.md).",
          )
        : null,
      hosted.deactivated || ownDid
        ? null
        : h(
            'section',
            { class: 'danger-zone', 'aria-labelledby': 'h-danger' },
            h('h2', { id: 'h-danger' }, 'Deactivate'),
            h('button', { type: 'button', class: 'danger', onClick: () => void deactivate() }, 'Deactivate DID…'),
          ),
    );
  };
  void load();
}
