/** DIDs hosted or tracked here: service endpoints (add, remove) and deactivation (confirmed). */
import type { JsonObject, JsonValue } from '../../wallet/crypto/json-value.ts';
import { call, enc, type HostedDid } from './api.ts';
import { facts, field, formatTime, fullId, h, replace, shortId, stateBadge, table } from './dom.ts';
import { announce, attempt, confirmAction, heading, loading, pretty, sourceButton } from './ui.ts';

export function renderDids(root: HTMLElement): void {
  const errors = h('div');
  const list = h('div', {}, loading());
  replace(root, heading('DIDs'), errors, list);
  void (async () => {
    const page = await attempt(errors, () => call('listDids', { query: { limit: 200 } }));
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

/** A DID document's services (DID Core §5.4), as the table shows them. */
function servicesOf(document: JsonObject): { id: string; type: string; endpoint: string }[] {
  const services = Array.isArray(document.service) ? document.service : [];
  const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');
  return services.filter(isJsonObject).map((s) => ({
    id: text(s.id),
    type: Array.isArray(s.type) ? s.type.map(text).join(' ') : text(s.type),
    endpoint: endpointText(s.serviceEndpoint),
  }));
}

function isJsonObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One DID's page: where it shows errors and its body, and how it reloads. */
interface DidView {
  did: string;
  errors: HTMLElement;
  body: HTMLElement;
  reload: () => Promise<void>;
}

async function removeService(view: DidView, event: Event, id: string): Promise<void> {
  const fragment = id.includes('#') ? id.slice(id.indexOf('#') + 1) : id;
  const done = await attempt(
    view.errors,
    () => call('removeService', { params: { did: view.did, endpointId: fragment } }),
    sourceButton(event),
  );
  if (done) {
    announce(`Service ${id} removed.`);
    await view.reload();
  }
}

async function deactivateDid(view: DidView): Promise<void> {
  const sure = await confirmAction(
    'Deactivate this DID?',
    `${view.did} will be deactivated: its document stops being served and every verification through this issuer refuses it (DID_DEACTIVATED). This cannot be undone.`,
    'Deactivate DID',
  );
  if (!sure) return;
  const done = await attempt(view.errors, () =>
    call('deactivateDid', {
      params: { did: view.did },
      body: { reason: 'deactivated by an operator in the console' },
    }),
  );
  if (done) {
    announce(`${view.did} deactivated.`);
    await view.reload();
  }
}

/** The form that adds a service endpoint to a hosted did:web document. */
function addServiceForm(view: DidView): HTMLElement {
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
  const add = async (event: Event) => {
    event.preventDefault();
    const done = await attempt(
      view.errors,
      () =>
        call('addService', {
          params: { did: view.did },
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
      await view.reload();
    }
  };
  return h(
    'form',
    { class: 'card', onSubmit: (e: Event) => void add(e) },
    h('h3', {}, 'Add a service endpoint'),
    field('Id (optional)', serviceId, 'A fragment such as files; default a random one'),
    field('Type', serviceType),
    field('Endpoint URL', serviceEndpoint),
    h('button', { type: 'submit' }, 'Add service'),
  );
}

function servicesSection(view: DidView, hosted: HostedDid, editable: boolean): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'h-services' },
    h('h2', { id: 'h-services' }, 'Service endpoints'),
    table(
      'Service endpoints',
      ['Id', 'Type', 'Endpoint', 'Actions'],
      servicesOf(hosted.didDocument).map((s) => [
        h('code', {}, s.id),
        s.type,
        fullId(s.endpoint),
        !editable
          ? '—'
          : h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                'aria-label': `Remove service ${s.id}`,
                onClick: (e: Event) => void removeService(view, e, s.id),
              },
              'Remove',
            ),
      ]),
      'No service endpoint.',
    ),
    editable ? addServiceForm(view) : null,
  );
}

function showDid(view: DidView, hosted: HostedDid): void {
  // What the issuer would refuse is not offered: its own DID is managed by its configuration
  // (ISSUER_DID_PROTECTED), and a did:key document cannot express services.
  const ownDid = hosted.kind === 'issuer';
  const editable = !hosted.deactivated && !ownDid && hosted.did.startsWith('did:web:');
  replace(
    view.body,
    facts([
      ['DID', fullId(view.did)],
      ['Kind', hosted.kind],
      ['State', stateBadge(hosted.deactivated ? 'deactivated' : 'active')],
    ]),
    servicesSection(view, hosted, editable),
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
          h('button', { type: 'button', class: 'danger', onClick: () => void deactivateDid(view) }, 'Deactivate DID…'),
        ),
  );
}

export function renderDid(root: HTMLElement, did: string): void {
  const errors = h('div');
  const body = h('div', {}, loading());
  replace(root, h('p', {}, h('a', { href: '#/dids' }, '← All DIDs')), heading('DID'), errors, body);
  const view: DidView = {
    did,
    errors,
    body,
    reload: async () => {
      const page = await attempt(errors, () => call('listDids', { query: { limit: 500 } }));
      const hosted = page?.dids.find((d) => d.did === did);
      if (hosted) return showDid(view, hosted);
      if (page) replace(errors, h('div', { class: 'error', role: 'alert' }, 'This DID is not hosted or tracked here.'));
      replace(body);
    },
  };
  void view.reload();
}
