/**
 * The `@context` values of Mandate credentials: VC 2.0 followed by the Mandate context
 * (wallet/jsonld/mandate-context.ts, where the document itself lives).
 */
import { MANDATE_CONTEXT, MANDATE_CONTEXT_URL } from '../jsonld/mandate-context.ts';
import { VC_V2_CONTEXT } from '../status/credential.ts';

export { MANDATE_CONTEXT, MANDATE_CONTEXT_URL, VC_V2_CONTEXT };
export const MANDATE_CONTEXTS: readonly [string, string] = [VC_V2_CONTEXT, MANDATE_CONTEXT_URL];
