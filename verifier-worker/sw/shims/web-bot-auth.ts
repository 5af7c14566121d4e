/**
 * A build-time stand-in for `wallet/http-signatures/web-bot-auth.ts` in the service-worker
 * bundle (aliased in verifier-worker/vite.sw.config.ts): the Web Bot Auth profile, minus its
 * code.
 *
 * Why: the worker verifies Mandate's signed requests (wallet/vc/signed-request.ts), which never
 * ask for the Web Bot Auth profile (`webBotAuth` stays unset), so its Signature-Agent parsing is
 * dead code there; the minifier cannot see that across modules, and it cost 0.9 KB of the
 * worker's gzip budget. If it were ever reached, it fails closed.
 */
import type * as WebBotAuth from '../../../wallet/http-signatures/web-bot-auth.ts';

export type SignatureAgent = WebBotAuth.SignatureAgent;
export type WebBotAuthVerifyOptions = WebBotAuth.WebBotAuthVerifyOptions;

export const WEB_BOT_AUTH_TAG = 'web-bot-auth';

export const coveredSignatureAgent: typeof WebBotAuth.coveredSignatureAgent = () => {
  throw new Error('the Web Bot Auth profile is not part of the verifier worker');
};
