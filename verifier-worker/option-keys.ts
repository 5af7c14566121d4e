/**
 * Option names the verifier knows. A misspelt or misplaced option is not ignored: ignored, it
 * would leave a default in force (a top-level `allowHttpLoopback` leaves loopback refused) and
 * every request would then fail with a message about something else. Setup throws
 * VerifierOptionsError naming the key and where it belongs instead.
 */
import type { UrlPolicy } from '../wallet/net/url-policy.ts';
import { invalidVerifierOptions } from '../wallet/vc/verify.ts';
import type { VerifyRequestOptions } from './options.ts';

const REQUEST_KEYS = [
  'trustedIssuers',
  'trustedGrantIssuers',
  'target',
  'requiredScopes',
  'challenge',
  'challenges',
  'challengePath',
  'resolver',
  'statusLists',
  'replayCache',
  'credentialCache',
  'chainCache',
  'maxSignedBodyBytes',
  'urlPolicy',
  'fetch',
  'now',
  'clockSkewMs',
  'maxChainLength',
  'maxPresentationBytes',
  'allowSelfSigned',
  'maxPresentationLifetimeMs',
  'requireCredentialStatus',
] as const satisfies ReadonlyArray<keyof VerifyRequestOptions>;

const URL_POLICY_KEYS = ['allowHttpLoopback', 'allowPrivateNetwork'] as const satisfies ReadonlyArray<keyof UrlPolicy>;

/** Names a caller may reach for from verifyPresentation's options, and what the middleware calls them. */
const RENAMED: Readonly<Record<string, string>> = {
  expectedDomain: 'target',
  expectedChallenge: "challenge (the middleware hands out and checks nonces itself: 'endpoint' mode)",
};

function has(list: readonly string[], key: string): boolean {
  return list.includes(key);
}

/** Throws VerifierOptionsError for a key of `options` (or of `options.urlPolicy`) the verifier does not read. */
export function assertKnownOptionKeys(options: object, extraKeys: readonly string[] = []): void {
  for (const key of Object.keys(options)) {
    if (has(REQUEST_KEYS, key) || has(extraKeys, key)) continue;
    if (has(URL_POLICY_KEYS, key))
      invalidVerifierOptions(
        `${key} is not a verifier option: it belongs inside urlPolicy ({ urlPolicy: { ${key}: true } })`,
      );
    const renamed = RENAMED[key];
    if (renamed !== undefined) invalidVerifierOptions(`${key} is not a verifier option: use ${renamed}`);
    invalidVerifierOptions(
      `unknown verifier option ${JSON.stringify(key.slice(0, 64))} (known: ${[...REQUEST_KEYS, ...extraKeys].join(', ')})`,
    );
  }
  const policy: unknown = (options as { urlPolicy?: unknown }).urlPolicy;
  if (policy === undefined) return;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy))
    invalidVerifierOptions('urlPolicy must be an object ({ allowHttpLoopback?, allowPrivateNetwork? })');
  for (const [key, value] of Object.entries(policy)) {
    if (!has(URL_POLICY_KEYS, key)) {
      const where =
        has(REQUEST_KEYS, key) || has(extraKeys, key)
          ? `: ${key} belongs at the top level of the options, beside urlPolicy`
          : ` (known: ${URL_POLICY_KEYS.join(', ')})`;
      invalidVerifierOptions(`unknown urlPolicy option ${JSON.stringify(key.slice(0, 64))}${where}`);
    }
    if (value !== undefined && typeof value !== 'boolean') invalidVerifierOptions(`urlPolicy.${key} must be a boolean`);
  }
}
