// Child process for the start-up race test: loads the issuer configuration for the database
// `argv[2]` at the wall-clock instant `argv[3]` (ms), so that several processes read and write
// the development secrets file at the same moment, and prints the secrets it ended up with.
import { bytesToHex } from '../../wallet/crypto/bytes.ts';
import { loadConfig } from '../../issuer/config/index.ts';

const [sqlitePath, startAt] = process.argv.slice(2);
// Sleep to just before the instant, then spin: a timer fires up to a few ms late, which would
// spread the processes apart, but spinning all the way would burn seconds of CPU the other
// processes need to get there in time.
await new Promise((resolve) => setTimeout(resolve, Number(startAt) - Date.now() - 50));
while (Date.now() < Number(startAt)) {
  // spin
}
const config = loadConfig({ SERVICE_SQLITE_PATH: sqlitePath });
process.stdout.write(
  JSON.stringify({
    signingKey: bytesToHex(config.signingKey),
    keyEncryptionKey: bytesToHex(config.keyEncryptionKey),
    adminApiKey: config.adminApiKey,
  }),
);
