/**
 * Errors of the service-worker verifier's own machinery (configuration and registration).
 * Refusals of requests are not errors: they are responses carrying the wallet's reason codes
 * (wallet/vc/reasons.ts) plus the worker's few routing reasons (see guard.ts).
 */
import { MandateError } from '../../wallet/crypto/errors.ts';

export type VerifierWorkerErrorCode =
  /** The configuration is not one the worker accepts (unknown key, bad type, bad route, …). */
  | 'CONFIG_INVALID'
  /** The configuration file could not be fetched or parsed, and no earlier copy is stored. */
  | 'CONFIG_UNAVAILABLE'
  /** This browser cannot run the verifier: no service workers here (or not a secure context), or no WebCrypto Ed25519. */
  | 'SW_UNSUPPORTED'
  /** The browser refused the worker script, or the worker never took control of the page. */
  | 'REGISTRATION_FAILED';

export class VerifierWorkerError extends MandateError<VerifierWorkerErrorCode> {
  override name = 'VerifierWorkerError';
}
