/**
 * The CLI's own failures and the exit-code table every command follows (docs/cli.md §Exit
 * codes). Scripts branch on the exit code, people read the message; neither ever carries the
 * admin key (the client redacts it from the issuer's answers, and the CLI never echoes option
 * values it was given).
 *
 * | code | meaning |
 * |---|---|
 * | 0 | success (a valid presentation, an intact audit chain) |
 * | 1 | internal error (a bug in the CLI) |
 * | 2 | usage: unknown command or option, bad value, unreadable file, bad URL, no admin key |
 * | 3 | denied: the issuer refused (4xx), a presentation failed verification, the audit chain is broken |
 * | 4 | unreachable: no answer from the issuer (connection refused, DNS, timeout) |
 * | 5 | issuer failure: a 5xx, or an answer that is not the documented JSON |
 */
import { isMandateError, MandateError } from '../wallet/crypto/errors.ts';
import type { JsonValue } from '../wallet/crypto/json-value.ts';
import { AgentFetchError, type AgentFetchCode } from '../wallet/agent/errors.ts';
import { IssuerApiError, IssuerClientError } from '../wallet/client/errors.ts';
import { KeyStoreError } from '../wallet/keystore/types.ts';
import { VerificationError } from '../wallet/vc/reasons.ts';
import type { RegisteredCode } from '../wallet/reasons/registry.ts';

export const EXIT = Object.freeze({ OK: 0, INTERNAL: 1, USAGE: 2, DENIED: 3, UNREACHABLE: 4, ISSUER_FAILED: 5 });

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The CLI's own failure codes, each a code of the reason registry (wallet/reasons/registry.ts,
 * checked at compile time), whose meanings docs/cli.md §CLI error codes is generated from:
 * USAGE (an unknown command or option, a missing or extra argument), ARGUMENT_INVALID (an option
 * value of the wrong form), FILE_UNREADABLE, FILE_INVALID (not the JSON it must be),
 * ADMIN_KEY_MISSING (an operator command without an admin key), SERVICE_UNREACHABLE (`mandate
 * fetch`: no answer from the service or its authorization server).
 */
export const CLI_ERROR_CODES = [
  'USAGE',
  'ARGUMENT_INVALID',
  'FILE_UNREADABLE',
  'FILE_INVALID',
  'ADMIN_KEY_MISSING',
  'SERVICE_UNREACHABLE',
] as const satisfies readonly RegisteredCode[];

export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

export class CliError extends MandateError<CliErrorCode> {
  override name = 'CliError';
}

/**
 * An agent's failure (docs/agents.md §Errors): refused by the service or its authorization
 * server (3), an answer from them the agent cannot use (5), or its own options (2).
 */
const AGENT_EXIT: Readonly<Record<AgentFetchCode, ExitCode>> = {
  AGENT_OPTIONS_INVALID: EXIT.USAGE,
  AGENT_CREDENTIALS_MISSING: EXIT.DENIED,
  AGENT_CLIENT_AUTH_UNSUPPORTED: EXIT.DENIED,
  AGENT_TOKEN_REFUSED: EXIT.DENIED,
  AGENT_SCOPE_NOT_HELD: EXIT.DENIED,
  AGENT_SERVICE_REFUSED: EXIT.DENIED,
  AGENT_METADATA_INVALID: EXIT.ISSUER_FAILED,
  AGENT_RESOURCE_MISMATCH: EXIT.ISSUER_FAILED,
  AGENT_ISSUER_MISMATCH: EXIT.ISSUER_FAILED,
  AGENT_TOKEN_RESPONSE_INVALID: EXIT.ISSUER_FAILED,
  AGENT_CHALLENGE_FAILED: EXIT.ISSUER_FAILED,
};

/** What a failure means to the caller of the process. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof CliError) return error.code === 'SERVICE_UNREACHABLE' ? EXIT.UNREACHABLE : EXIT.USAGE;
  if (error instanceof AgentFetchError) return AGENT_EXIT[error.code];
  // The agent's key file: missing passphrase, wrong passphrase, corrupt or exposed file.
  if (error instanceof KeyStoreError) return EXIT.USAGE;
  // A delegation the chain rules refuse (SCOPE_ESCALATION, DEPTH_EXCEEDED, …).
  if (error instanceof VerificationError) return EXIT.DENIED;
  if (error instanceof IssuerApiError) return error.status >= 500 ? EXIT.ISSUER_FAILED : EXIT.DENIED;
  if (error instanceof IssuerClientError) {
    switch (error.code) {
      case 'NETWORK_ERROR':
      case 'TIMEOUT':
      case 'KEY_UNAVAILABLE':
        return EXIT.UNREACHABLE;
      case 'CONFIG_INVALID':
      case 'ADMIN_KEY_REQUIRED':
        return EXIT.USAGE;
      case 'ABORTED':
      case 'RESPONSE_INVALID':
      case 'RESPONSE_TOO_LARGE':
        return EXIT.ISSUER_FAILED;
    }
  }
  return EXIT.INTERNAL;
}

/**
 * The error as `{code, message, status?, details?}`: stable fields only, never a stack or a
 * cause. `details` is the issuer's (a VALIDATION_FAILED's `[{path, message}]`), already
 * redacted of the admin key by the client.
 */
export function describeError(error: unknown): {
  code: string;
  message: string;
  status?: number;
  reason?: string;
  details?: JsonValue;
} {
  // The other party's own codes beside the agent's: what the service or its AS said.
  if (error instanceof AgentFetchError) {
    const reason = error.serviceReason ?? error.oauthError;
    return {
      code: error.code,
      message: error.message,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(reason === undefined ? {} : { reason }),
    };
  }
  if (error instanceof IssuerApiError)
    return {
      code: error.code,
      message: error.message,
      status: error.status,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  if (isMandateError(error)) return { code: error.code, message: error.message };
  // A bug: its text could hold anything, so only a fixed message leaves the process.
  return { code: 'INTERNAL', message: 'unexpected internal error (set MANDATE_DEBUG=1 to see it)' };
}

/** Issues shown at most: the issuer sends up to 20, a hostile one could send thousands. */
const MAX_ISSUES = 10;
/** Characters shown at most per issue. */
const MAX_ISSUE_CHARS = 200;

function issueText(detail: JsonValue): string | undefined {
  if (detail === null || typeof detail !== 'object' || Array.isArray(detail) || typeof detail.message !== 'string')
    return undefined;
  const text =
    typeof detail.path === 'string' && detail.path !== '' ? `${detail.path}: ${detail.message}` : detail.message;
  // By code point, so a cut never leaves half a surrogate pair.
  return [...text].slice(0, MAX_ISSUE_CHARS).join('');
}

/**
 * ` (json.requestedScopes.0: Invalid string; …)` from a validation error's details
 * (`[{path, message}]`, issuer/http/errors.ts), or '' for details of any other shape: without
 * it, "invalid request body" does not say which option was wrong.
 */
export function validationText(details: JsonValue | undefined): string {
  if (!Array.isArray(details)) return '';
  const issues = details.map(issueText).filter((text): text is string => text !== undefined);
  if (issues.length === 0) return '';
  const more = issues.length > MAX_ISSUES ? `; and ${issues.length - MAX_ISSUES} more` : '';
  return ` (${issues.slice(0, MAX_ISSUES).join('; ')}${more})`;
}
