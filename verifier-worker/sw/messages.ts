/**
 * The page ↔ worker message protocol (HTML §10.4 channel messaging): the page posts a
 * configuration with a MessagePort, the worker answers on that port. Shared by the worker and
 * the page helper, so both spell it the same way; nothing here pulls in the verifier.
 */

export const CONFIGURE_MESSAGE = 'mandate-verifier-configure';

export interface ConfigureMessage {
  type: typeof CONFIGURE_MESSAGE;
  config: unknown;
}

export type ConfigureReply = { ok: true } | { ok: false; code: string; message: string };

export function isConfigureMessage(value: unknown): value is ConfigureMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === CONFIGURE_MESSAGE;
}

/** The script URL parameter naming the configuration file. */
export const CONFIG_PARAM = 'config';

/** The default BroadcastChannel of verification reports. */
export const DEFAULT_REPORT_CHANNEL = 'mandate-verifier';
