/** `mandate vcs issue|revoke|suspend|reinstate|renew|show`: the credential lifecycle (docs/api.md §Credentials). */
import type { CredentialView, StatusChangeView } from '../../wallet/contract/credentials.ts';
import type { CommandSpec } from '../command.ts';
import { integerOption, listOption, requiredOption, stringOption, usage } from '../command.ts';
import { EXIT } from '../errors.ts';
import { keyValues } from '../output.ts';

const VALIDITY_MAX = 10 * 365 * 86_400;

function scopesOf(view: CredentialView): string[] | undefined {
  const subject = (view.verifiableCredential as { credentialSubject?: { privilegeScopes?: unknown } })
    .credentialSubject;
  return Array.isArray(subject?.privilegeScopes) ? subject.privilegeScopes.map(String) : undefined;
}

/** A credential as label/value lines, shared with `agents show`. */
export function credentialText(view: CredentialView): string {
  return keyValues([
    ['vc id', view.vcId],
    ['type', view.type],
    ['state', view.state],
    ['subject', view.subjectDid],
    ['issuer', view.issuerDid],
    ['scopes', scopesOf(view)],
    ['issued', view.issuedAt],
    ['valid from', view.validFrom],
    ['valid until', view.validUntil],
    ['revoked', view.revokedAt],
    ['suspended', view.suspendedAt],
    ['superseded by', view.supersededBy],
    ['parent', view.parentId],
    ['status lists', (view.statusLists ?? []).map((s) => `${s.purpose}:${s.listId}#${s.index}`)],
  ]);
}

const vcIdArg = [{ name: 'vcId', description: 'the credential id (urn:uuid:…)' }] as const;

/**
 * The credentials a status action reached besides the one named: its renewals and predecessors,
 * and for a revoked current credential the agent's others. The operator named one; all changed.
 */
function alsoChanged(verb: string, named: string, view: StatusChangeView): string {
  const others = (view.changed ?? []).filter((id) => id !== view.vcId && id !== named);
  return others.length === 0
    ? ''
    : `Also ${verb} (${others.length}: renewals, predecessors or the agent's other credentials):\n${others.map((id) => `  ${id}`).join('\n')}\n`;
}

const reasonOption = { reason: { type: 'string', value: 'text', description: 'why (kept in the audit log)' } } as const;

/** `vcs revoke`, `vcs suspend` and `vcs reinstate`: a status list bit, and all it reached. */
function statusCommand(name: 'revoke' | 'suspend' | 'reinstate', summary: string, verb: string): CommandSpec {
  return {
    path: ['vcs', name],
    summary,
    needs: 'admin',
    args: vcIdArg,
    options: reasonOption,
    async run(ctx) {
      const reason = stringOption(ctx.options, 'reason');
      const named = ctx.args[0] as string;
      const client = ctx.client();
      const view: StatusChangeView & { alreadyRevoked?: true } = await client[name](named, {
        ...(reason === undefined ? {} : { reason }),
        signal: ctx.signal,
      });
      const headline = view.alreadyRevoked ? 'Already revoked.' : `${verb[0]?.toUpperCase()}${verb.slice(1)}.`;
      ctx.print(`${headline}\n${alsoChanged(verb, named, view)}${credentialText(view)}`, view);
      return EXIT.OK;
    },
  };
}

export const vcCommands: readonly CommandSpec[] = [
  {
    path: ['vcs', 'issue'],
    summary: 'Issue an AgentCredential to a DID',
    needs: 'admin',
    options: {
      subject: { type: 'string', value: 'did', description: "the agent's DID (required)" },
      scope: { type: 'string', multiple: true, value: 'scope', description: 'a privilege scope; at least one' },
      depth: { type: 'string', value: 'n', description: 'delegation depth (0–16, default 0)' },
      domain: {
        type: 'string',
        multiple: true,
        value: 'domain',
        description: 'where it applies: a host (every https URI at that host and port) or one resource URI',
      },
      validity: { type: 'string', value: 'seconds', description: 'validity period' },
    },
    async run(ctx) {
      const subjectDid = requiredOption(ctx.options, 'subject');
      const privilegeScopes = listOption(ctx.options, 'scope');
      if (privilegeScopes.length === 0) throw usage('at least one --scope is required');
      const domains = listOption(ctx.options, 'domain');
      const validitySeconds = integerOption(ctx.options, 'validity', 1, VALIDITY_MAX);
      const view = await ctx.client().issueCredential(
        {
          subjectDid,
          privilegeScopes,
          delegationDepth: integerOption(ctx.options, 'depth', 0, 16) ?? 0,
          ...(domains.length > 0 ? { domains } : {}),
          ...(validitySeconds === undefined ? {} : { validitySeconds }),
        },
        { signal: ctx.signal },
      );
      ctx.print(`Issued.\n${credentialText(view)}`, view);
      return EXIT.OK;
    },
  },
  statusCommand('revoke', 'Revoke a credential (final; published on its status list)', 'revoked'),
  statusCommand('suspend', 'Suspend a credential (its renewals and predecessors too) until reinstated', 'suspended'),
  statusCommand('reinstate', 'Lift a suspension (and the ones it caused on predecessors)', 'reinstated'),
  {
    path: ['vcs', 'renew'],
    summary: 'Issue a successor with the same subject and limits; the old one becomes superseded',
    needs: 'admin',
    args: vcIdArg,
    options: { validity: { type: 'string', value: 'seconds', description: "the new credential's validity" } },
    async run(ctx) {
      const validitySeconds = integerOption(ctx.options, 'validity', 1, VALIDITY_MAX);
      const view = await ctx.client().renew(ctx.args[0] as string, {
        ...(validitySeconds === undefined ? {} : { validitySeconds }),
        signal: ctx.signal,
      });
      ctx.print(`Renewed (supersedes ${view.previousVcId ?? ctx.args[0]}).\n${credentialText(view)}`, view);
      return EXIT.OK;
    },
  },
  {
    path: ['vcs', 'show'],
    summary: 'Show a credential and its state (public: no admin key needed)',
    needs: 'issuer',
    args: vcIdArg,
    async run(ctx) {
      const view = await ctx.client().getCredential(ctx.args[0] as string, { signal: ctx.signal });
      ctx.print(credentialText(view), view);
      return EXIT.OK;
    },
  },
];
