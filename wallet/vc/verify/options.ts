/**
 * The options `verifyPresentation` accepts, checked before any verification: a bad option is
 * the caller's programming error (VerifierOptionsError), never the presentation's.
 */
import { isDid } from '../../did/parse.ts';
import { VerifierOptionsError } from '../reasons.ts';
import { parseScopes } from '../scopes.ts';
import type { VerifyPresentationOptions } from './types.ts';

export function invalidVerifierOptions(message: string): never {
  throw new VerifierOptionsError('INVALID_VERIFIER_OPTIONS', message);
}

/** A list of DIDs (trusted issuers), each by DID Core §3.1. */
export function isDidList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every(isDid);
}

const isCount = (value: unknown): boolean =>
  value === undefined || (Number.isSafeInteger(value) && (value as number) >= 1);
const isDuration = (value: unknown): boolean =>
  value === undefined || (typeof value === 'number' && value >= 0 && Number.isFinite(value));
const isFlag = (value: unknown): boolean => value === undefined || typeof value === 'boolean';
const hasMethod = (value: unknown, name: string): boolean =>
  value === undefined || typeof (value as Record<string, unknown> | null)?.[name] === 'function';

/**
 * Throws VerifierOptionsError for options verifyPresentation cannot work with: a bad option is
 * the caller's programming error, never the presentation's. verifyPresentation runs it on every
 * call; the middleware at setup, so a bad configuration fails at startup.
 */
export function assertVerifyPresentationOptions(options: VerifyPresentationOptions): void {
  if (typeof options !== 'object' || options === null) invalidVerifierOptions('options must be an object');
  if (!isDidList(options.trustedIssuers)) invalidVerifierOptions('trustedIssuers must be a list of DIDs');
  if (options.trustedGrantIssuers !== undefined && !isDidList(options.trustedGrantIssuers))
    invalidVerifierOptions('trustedGrantIssuers must be a list of DIDs');
  if (typeof options.expectedDomain !== 'string' || options.expectedDomain.length === 0)
    invalidVerifierOptions('expectedDomain must be a non-empty string');
  if (options.expectedChallenge !== undefined && typeof options.expectedChallenge !== 'string')
    invalidVerifierOptions('expectedChallenge must be a string');
  if (options.requiredScopes !== undefined) {
    try {
      parseScopes(options.requiredScopes);
    } catch (error) {
      invalidVerifierOptions(`requiredScopes: ${(error as Error).message}`);
    }
  }
  // `?? null`: unlike the optional helpers below, a resolver is required.
  if (!hasMethod(options.resolver ?? null, 'resolve'))
    invalidVerifierOptions('resolver must be a DID resolver (createResolver, createCachedResolver)');
  if (!hasMethod(options.statusLists, 'check'))
    invalidVerifierOptions('statusLists must be a status list client (createStatusListClient)');
  if (!hasMethod(options.replayCache, 'remember'))
    invalidVerifierOptions('replayCache must be a replay cache (createReplayCache)');
  if (!hasMethod(options.credentialCache, 'recall'))
    invalidVerifierOptions('credentialCache must be a verified-credential cache (createVerifiedCredentialCache)');
  if (options.now !== undefined && !(options.now instanceof Date && !Number.isNaN(options.now.getTime())))
    invalidVerifierOptions('now must be a valid Date');
  if (!isDuration(options.clockSkewMs) || !isDuration(options.maxPresentationLifetimeMs))
    invalidVerifierOptions('clockSkewMs and maxPresentationLifetimeMs must be non-negative numbers of ms');
  if (!isCount(options.maxChainLength) || !isCount(options.maxPresentationBytes))
    invalidVerifierOptions('maxChainLength and maxPresentationBytes must be positive integers');
  if (!isFlag(options.allowSelfSigned) || !isFlag(options.requireCredentialStatus))
    invalidVerifierOptions('allowSelfSigned and requireCredentialStatus must be booleans');
}
