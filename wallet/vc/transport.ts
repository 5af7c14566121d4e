/**
 * How a presentation travels in HTTP (docs/verifier.md §Wire format): `Authorization: VP
 * <token>`, token = base64url without padding (RFC 4648 §5) of the UTF-8 JSON of the
 * VerifiablePresentation; the scheme compares case-insensitively (RFC 9110 §11.1). Agents
 * encode with it, verifiers (`mandate/verifier`, the service worker) decode with it.
 */
import { base64urlToBytes, bytesToBase64url } from '../crypto/base64url.ts';
import { bytesToUtf8, utf8ToBytes } from '../crypto/bytes.ts';
import { MandateError, isMandateError } from '../crypto/errors.ts';
import { parseJson } from '../crypto/json-parse.ts';
import { type JsonValue } from '../crypto/json-value.ts';

/** The HTTP authentication scheme of a presentation (RFC 9110 §11.1, compared case-insensitively). */
export const PRESENTATION_SCHEME = 'VP';
/** Largest presentation accepted by default: 64 KiB of JSON, checked before decoding. */
export const DEFAULT_MAX_PRESENTATION_BYTES = 64 * 1024;

/**
 * Why the `Authorization` header did not yield a presentation. All surface to clients as reason
 * `MALFORMED`; the first three (nothing usable was sent) as 401 with `WWW-Authenticate`, the
 * last two (something was sent but it is not a presentation) as 400.
 */
export type PresentationHeaderErrorCode =
  | 'AUTHORIZATION_MISSING'
  | 'AUTHORIZATION_SCHEME'
  | 'AUTHORIZATION_ENCODING'
  | 'PRESENTATION_TOO_LARGE'
  | 'PRESENTATION_NOT_JSON';

export class PresentationHeaderError extends MandateError<PresentationHeaderErrorCode> {
  override name = 'PresentationHeaderError';
}

/** `VP <base64url(JSON)>` for a presentation: what a client puts in `Authorization`. */
export function encodePresentationHeader(presentation: unknown): string {
  return `${PRESENTATION_SCHEME} ${bytesToBase64url(utf8ToBytes(JSON.stringify(presentation)))}`;
}

/**
 * The presentation carried by an `Authorization` header value, as parsed JSON (its shape is
 * judged later by verifyPresentation). Size is bounded twice: the token length before any
 * decoding, then the decoded bytes. Messages never contain the header's content.
 */
export function decodePresentationHeader(
  value: string | null | undefined,
  maxBytes = DEFAULT_MAX_PRESENTATION_BYTES,
): JsonValue {
  if (value === null || value === undefined || value.trim() === '') {
    throw new PresentationHeaderError(
      'AUTHORIZATION_MISSING',
      `no presentation: send Authorization: ${PRESENTATION_SCHEME} <base64url(JSON of the presentation)>`,
    );
  }
  // RFC 9110 §11.4: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ].
  const [, scheme = '', token = ''] = /^(\S+)(?: +(.*))?$/s.exec(value.trim()) ?? [];
  if (scheme.toUpperCase() !== PRESENTATION_SCHEME) {
    throw new PresentationHeaderError(
      'AUTHORIZATION_SCHEME',
      `the Authorization scheme must be ${PRESENTATION_SCHEME}`,
    );
  }
  // 4 base64url characters carry 3 bytes: a longer token cannot decode to maxBytes or less.
  if (token.length > Math.ceil((maxBytes * 4) / 3)) {
    throw new PresentationHeaderError('PRESENTATION_TOO_LARGE', `the presentation is larger than ${maxBytes} bytes`);
  }
  const bytes = base64urlToBytes(token);
  if (bytes === undefined || bytes.length === 0) {
    throw new PresentationHeaderError(
      'AUTHORIZATION_ENCODING',
      'the presentation must be base64url without padding (RFC 4648 §5)',
    );
  }
  if (bytes.length > maxBytes)
    throw new PresentationHeaderError('PRESENTATION_TOO_LARGE', `the presentation is larger than ${maxBytes} bytes`);
  try {
    return parseJson(bytesToUtf8(bytes), { maxBytes });
  } catch (error) {
    // Only the code: a JSON error message may quote part of the input.
    const code = isMandateError(error) ? error.code : 'UTF8_INVALID';
    throw new PresentationHeaderError('PRESENTATION_NOT_JSON', `the presentation is not UTF-8 JSON (${code})`);
  }
}
