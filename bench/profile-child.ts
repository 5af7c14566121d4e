// Loaded with --import into the issuer child by bench/profile-http.ts: starts and stops the V8
// CPU profiler on IPC messages, so the profile covers the load only (no start-up, no set-up).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
process.on('message', (message) => {
  void (async () => {
    if (message === 'profile-start') {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      process.send?.('profile-started');
    } else if (message === 'profile-stop') {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(process.env.MANDATE_PROFILE_OUT ?? 'issuer.cpuprofile', JSON.stringify(profile));
      process.send?.('profile-stopped');
    }
  })();
});
