// A key directory signed by Cloudflare's web-bot-auth (npm, 0.1.3) and verified by Mandate: the
// package follows the older directory drafts, whose signatures cover `"@authority";req` alone,
// where the working-group draft now also requires `content-digest`. Mandate verifies it when told
// the body need not be covered, and refuses it by default (docs/key-directory.md §Where the drafts
// still move).
import { directoryResponseHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { seedSigner } from '../../../wallet/crypto/ed25519.ts';
import {
  DIRECTORY_SIGNATURE_TAG,
  SIGNATURE_DIRECTORY_MEDIA_TYPE,
  SIGNATURE_DIRECTORY_PATH,
  signatureDirectoryDocument,
} from '../../../wallet/http-signatures/directory.ts';
import { verifyResponseSignature } from '../../../wallet/http-signatures/index.ts';

// RFC 9421 Appendix B.1.4 `test-key-ed25519`.
const SEED = (base64ToBytes('MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF') as Uint8Array).slice(
  -32,
);
const PUBLIC_KEY = seedSigner(SEED).publicKey;

describe("web-bot-auth's signed directory, verified by Mandate", () => {
  it('verifies when the body need not be covered, and is refused CONTENT_DIGEST_MISSING by default', async () => {
    const body = JSON.stringify(await signatureDirectoryDocument([PUBLIC_KEY]));
    const request = new Request(`https://signature-agent.test${SIGNATURE_DIRECTORY_PATH}`);
    const headers = new Headers({ 'content-type': SIGNATURE_DIRECTORY_MEDIA_TYPE });
    const signer = await signerFromJWK({
      kty: 'OKP',
      crv: 'Ed25519',
      x: bytesToBase64url(PUBLIC_KEY),
      d: bytesToBase64url(SEED),
    });
    const now = Date.now();
    const fields = await directoryResponseHeaders(
      { request: { method: 'GET', url: request.url, headers: new Headers() }, response: { status: 200, headers } },
      [signer],
      { created: new Date(now), expires: new Date(now + 300_000) },
    );
    headers.set('signature-input', fields['Signature-Input']);
    headers.set('signature', fields.Signature);
    const response = new Response(body, { headers });
    const options = {
      tag: DIRECTORY_SIGNATURE_TAG,
      requiredComponents: ['"@authority";req'],
      resolveKey: (keyid: string) => Promise.resolve(keyid === signer.keyid ? PUBLIC_KEY : undefined),
    };
    const verified = await verifyResponseSignature(response, request, { ...options, requireContentDigest: false });
    expect(verified).toMatchObject({ label: 'binding0', keyid: signer.keyid, components: ['"@authority";req'] });
    // Its keyid is the RFC 7638 thumbprint, the `kid` Mandate's directory lists.
    expect(verified.keyid).toBe(JSON.parse(body).keys[0].kid);
    await expect(verifyResponseSignature(response, request, options)).rejects.toMatchObject({
      code: 'CONTENT_DIGEST_MISSING',
    });
  });
});
