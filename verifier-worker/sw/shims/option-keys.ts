/**
 * A build-time stand-in for `verifier-worker/option-keys.ts` in the service-worker bundle (aliased
 * in verifier-worker/vite.sw.config.ts): no option-name check.
 *
 * Why: the check is for callers who write verifyRequest's options by hand. In the worker, the
 * options object is built by guard.ts from fixed keys (config.ts `verifierSettings` and the
 * worker's own stores), and the configuration those values come from has had its own keys
 * checked by config.ts `parseWorkerConfig` (CONFIG_INVALID naming the key); so the name check can
 * never fail there, and its key lists and messages cost 0.7 KB of the worker's gzip budget.
 */
import type * as OptionKeys from '../../option-keys.ts';

export const assertKnownOptionKeys: typeof OptionKeys.assertKnownOptionKeys = () => undefined;
