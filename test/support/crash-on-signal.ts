// Loaded with --import into an issuer child by test/issuer/process/runtime.test.ts: on SIGUSR2 it
// throws from a callback (MANDATE_TEST_CRASH=throw) or leaves a promise rejected (=reject), so a
// test sees what the issuer's log says of a crash — one bug it did not catch.
process.on('SIGUSR2', () => {
  setImmediate(() => {
    if (process.env.MANDATE_TEST_CRASH === 'reject') void Promise.reject(new Error('planted rejection'));
    else throw new Error('planted crash');
  });
});
