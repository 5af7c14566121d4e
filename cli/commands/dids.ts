/** `mandate dids create|resolve|add-service|remove-service|deactivate` (docs/api.md §DIDs; DID Core). */
import type { JsonObject, JsonValue } from '../../wallet/crypto/json-value.ts';
import type { CreateDidInput, HostedDid } from '../../wallet/contract/dids.ts';
import type { CommandSpec } from '../command.ts';
import { choiceOption, requiredOption, stringOption, usage } from '../command.ts';
import { EXIT } from '../errors.ts';
import { valueText, keyValues, table } from '../output.ts';

function servicesOf(document: JsonObject | null | undefined): string {
  const services = Array.isArray(document?.service) ? document.service : [];
  const rows = services.map((s) => {
    const service = (s ?? {}) as { id?: JsonValue; type?: JsonValue; serviceEndpoint?: JsonValue };
    const endpoint =
      typeof service.serviceEndpoint === 'string' ? service.serviceEndpoint : JSON.stringify(service.serviceEndpoint);
    return [valueText(service.id), valueText(service.type), endpoint];
  });
  return `\nServices:\n${table(['id', 'type', 'endpoint'], rows)}`;
}

function hostedText(did: HostedDid): string {
  return (
    keyValues([
      ['did', did.did],
      ['kind', did.kind],
      ['server-held key', did.serverHeldKey ? 'yes' : 'no'],
      ['deactivated', did.deactivated ? 'yes' : 'no'],
      ['created', did.created],
      ['updated', did.updated],
    ]) + servicesOf(did.didDocument)
  );
}

const didArg = { name: 'did', description: 'the DID' } as const;

export const didCommands: readonly CommandSpec[] = [
  {
    path: ['dids', 'create'],
    summary: 'Create a DID with a server-held key, host one for your key, or register a did:key',
    needs: 'admin',
    options: {
      method: {
        type: 'string',
        value: 'web|key',
        description: "DID method for a new server-held key (default: the issuer's DID_METHOD)",
      },
      name: { type: 'string', value: 'name', description: 'did:web path segment (did:web:<domain>:dids:<name>)' },
      'public-key': {
        type: 'string',
        value: 'z6Mk…',
        description: 'host a did:web document for a key you keep (publicKeyMultibase)',
      },
      did: { type: 'string', value: 'did:key:…', description: 'register an existing did:key' },
    },
    async run(ctx) {
      const method = choiceOption(ctx.options, 'method', ['web', 'key'] as const);
      const name = stringOption(ctx.options, 'name');
      const publicKeyMultibase = stringOption(ctx.options, 'public-key');
      const existing = stringOption(ctx.options, 'did');
      if (existing !== undefined && (method || name || publicKeyMultibase))
        throw usage('--did cannot be combined with --method, --name or --public-key');
      if (publicKeyMultibase !== undefined && method) throw usage('--public-key cannot be combined with --method');
      if (name !== undefined && method === 'key')
        throw usage('--name names a did:web path segment: it does not apply to --method key');
      const input: CreateDidInput =
        existing !== undefined
          ? { did: existing }
          : publicKeyMultibase !== undefined
            ? { publicKeyMultibase, ...(name ? { name } : {}) }
            : { ...(method ? { method } : {}), ...(name ? { name } : {}) };
      const did = await ctx.client().createDid(input, { signal: ctx.signal });
      ctx.print(`Created.\n${hostedText(did)}`, did);
      return EXIT.OK;
    },
  },
  {
    path: ['dids', 'resolve'],
    summary: 'Resolve a DID hosted by the issuer, or any did:key (public)',
    needs: 'issuer',
    args: [didArg],
    async run(ctx) {
      const result = await ctx.client().resolveDid(ctx.args[0] as string, { signal: ctx.signal });
      const document = result.didDocument;
      const methods = Array.isArray(document?.verificationMethod) ? document.verificationMethod : [];
      const human =
        keyValues([
          ['did', valueText(document?.id ?? ctx.args[0])],
          ['deactivated', result.didDocumentMetadata.deactivated === true ? 'yes' : 'no'],
          [
            'updated',
            typeof result.didDocumentMetadata.updated === 'string' ? result.didDocumentMetadata.updated : undefined,
          ],
        ]) +
        `\nVerification methods:\n${table(
          ['id', 'type', 'public key'],
          methods.map((m) => {
            const vm = (m ?? {}) as { id?: JsonValue; type?: JsonValue; publicKeyMultibase?: JsonValue };
            return [valueText(vm.id), valueText(vm.type), valueText(vm.publicKeyMultibase)];
          }),
        )}` +
        servicesOf(document);
      ctx.print(human, result);
      return EXIT.OK;
    },
  },
  {
    path: ['dids', 'add-service'],
    summary: 'Add a service endpoint to a hosted did:web document (DID Core §5.4)',
    needs: 'admin',
    args: [didArg],
    options: {
      type: { type: 'string', value: 'type', description: 'service type (required), e.g. LinkedDomains' },
      endpoint: { type: 'string', value: 'url', description: 'serviceEndpoint URL (required)' },
      id: { type: 'string', value: 'fragment', description: 'service id fragment (default: random)' },
    },
    async run(ctx) {
      const type = requiredOption(ctx.options, 'type');
      const serviceEndpoint = requiredOption(ctx.options, 'endpoint');
      const id = stringOption(ctx.options, 'id');
      const did = await ctx
        .client()
        .addService(
          ctx.args[0] as string,
          { type, serviceEndpoint, ...(id === undefined ? {} : { id }) },
          { signal: ctx.signal },
        );
      ctx.print(`Service added.\n${hostedText(did)}`, did);
      return EXIT.OK;
    },
  },
  {
    path: ['dids', 'remove-service'],
    summary: 'Remove a service endpoint by its id',
    needs: 'admin',
    args: [didArg, { name: 'serviceId', description: 'the service id or its fragment' }],
    async run(ctx) {
      const did = await ctx
        .client()
        .removeService(ctx.args[0] as string, ctx.args[1] as string, { signal: ctx.signal });
      ctx.print(`Service removed.\n${hostedText(did)}`, did);
      return EXIT.OK;
    },
  },
  {
    path: ['dids', 'deactivate'],
    summary: 'Deactivate a hosted DID (DID Core §7.1.3); every verification then refuses it',
    needs: 'admin',
    args: [didArg],
    options: { reason: { type: 'string', value: 'text', description: 'why (kept in the audit log)' } },
    async run(ctx) {
      const reason = stringOption(ctx.options, 'reason');
      const did = await ctx
        .client()
        .deactivateDid(ctx.args[0] as string, { ...(reason === undefined ? {} : { reason }), signal: ctx.signal });
      ctx.print(`Deactivated.\n${hostedText(did)}`, did);
      return EXIT.OK;
    },
  },
];
