/** `mandate keys generate`: a new SERVICE_SIGNING_KEY (an Ed25519 seed, RFC 8032 §5.1.5). */
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { generateSeed, getPublicKey } from '../../wallet/crypto/ed25519.ts';
import { encodePublicKeyMultibase } from '../../wallet/crypto/multikey.ts';
import type { CommandSpec } from '../command.ts';
import { EXIT } from '../errors.ts';

export const keyCommands: readonly CommandSpec[] = [
  {
    path: ['keys', 'generate'],
    summary: 'Print a new SERVICE_SIGNING_KEY (32-byte hex seed) on stdout',
    needs: 'nothing',
    examples: ['SERVICE_SIGNING_KEY=$(mandate keys generate)'],
    run(ctx) {
      const seed = generateSeed();
      const hex = bytesToHex(seed);
      // Only the seed on stdout, so `$(mandate keys generate)` captures exactly the key.
      ctx.print(`${hex}\n`, {
        serviceSigningKey: hex,
        publicKeyMultibase: encodePublicKeyMultibase(getPublicKey(seed)),
      });
      seed.fill(0);
      return Promise.resolve(EXIT.OK);
    },
  },
];
