// A browser wallet survives a real page reload: the page (served by a Vite dev server created
// here, on 127.0.0.1) opens a Wallet on IndexedDB stores, creates its key and a credential;
// Debian Chromium (driven by playwright, never a downloaded browser) reloads the page; the
// reopened wallet has the same DID, signs with the same non-extractable key, still holds the
// credential and presents it. The credential-store rules hold in IndexedDB too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright';
import { createServer, type Plugin, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = '/__wallet-reload.html';
const ENTRY = '/__wallet-reload-entry.js';

// The page's script: the real wallet modules, served and transformed by Vite.
const entry = `
import { createStore, set } from 'idb-keyval';
import { Wallet } from '/wallet/wallet.ts';
import { createIndexedDbKeyStore } from '/wallet/keystore/indexeddb.ts';
import { createIndexedDbCredentialStore } from '/wallet/client/credential-store.ts';
import { bytesToHex, utf8ToBytes } from '/wallet/crypto/bytes.ts';
import { resolveDidKey } from '/wallet/did/key.ts';
import { createResolver } from '/wallet/did/registry.ts';
import { verifyPresentation } from '/wallet/vc/verify.ts';

const message = utf8ToBytes('same key after reload');
const resolver = createResolver({ methods: { key: resolveDidKey } });
async function open(name) {
  const keyStore = createIndexedDbKeyStore({ name: name + '-keys' });
  const wallet = await Wallet.open({ keyStore, credentialStore: createIndexedDbCredentialStore({ name: name + '-credentials' }) });
  const signature = bytesToHex(await wallet.identity.signer.sign(message));
  return { wallet, keyStore, signature };
}
window.walletTest = {
  async create(name) {
    const { wallet, keyStore, signature } = await open(name);
    const credential = await wallet.selfIssue({ privilegeScopes: ['files:read'], domains: ['files.example.com'] });
    return { did: wallet.did, publicKeyMultibase: wallet.publicKeyMultibase, signature, credentialId: credential.id, extractable: (await keyStore.get('agent')).extractable };
  },
  async reopen(name) {
    const { wallet, keyStore, signature } = await open(name);
    const vp = await wallet.present({ target: 'files.example.com', challenge: 'after-reload', scopes: ['files:read'] });
    const result = await verifyPresentation(vp, { trustedIssuers: [], allowSelfSigned: true, expectedDomain: 'files.example.com', expectedChallenge: 'after-reload', resolver });
    return {
      did: wallet.did,
      publicKeyMultibase: wallet.publicKeyMultibase,
      signature,
      keys: (await keyStore.list()).length,
      credentialIds: (await wallet.credentials()).map((c) => c.id),
      presented: vp.verifiableCredential.map((c) => c.id),
      valid: result.valid,
    };
  },
  async rules(name) {
    const codeOf = (promise) => promise.then(() => 'accepted', (error) => error.code);
    const { wallet } = await open(name);
    const credential = await wallet.selfIssue({ privilegeScopes: ['files:read'] });
    const again = await codeOf(wallet.addCredential(structuredClone(credential)));
    const conflict = await codeOf(wallet.addCredential({ ...credential, validFrom: '2001-01-01T00:00:00Z' }));
    const small = createIndexedDbCredentialStore({ name: name + '-small', maxCredentials: 1 });
    await small.put(credential);
    const full = await codeOf(small.put(await wallet.selfIssue({ privilegeScopes: ['files:write'] })));
    await set('urn:uuid:00000000-0000-4000-8000-0000000000ff', { id: 'planted', scopes: ['*'] }, createStore(name + '-credentials', 'credentials'));
    const planted = await codeOf(wallet.credentials());
    return { again, conflict, full, planted };
  },
};
window.walletReady = true;
`;

function walletPage(): Plugin {
  return {
    name: 'wallet-reload-page',
    resolveId: (id) => (id === ENTRY ? ENTRY : undefined),
    load: (id) => (id === ENTRY ? entry : undefined),
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url !== PAGE) return next();
        res.setHeader('content-type', 'text/html');
        res.end(
          `<!doctype html><meta charset="utf-8"><title>wallet reload</title><script type="module" src="${ENTRY}"></script>`,
        );
      });
    },
  };
}

declare global {
  interface Window {
    walletReady?: boolean;
    walletTest: Record<'create' | 'reopen' | 'rules', (name: string) => Promise<unknown>>;
  }
}

let vite: ViteDevServer;
let browser: Browser;
let pageUrl: string;
const cacheDir = mkdtempSync(join(tmpdir(), 'mandate-vite-'));

beforeAll(async () => {
  vite = await createServer({
    configFile: false,
    root,
    cacheDir, // not the shared node_modules/.vite of the test runs
    appType: 'custom',
    logLevel: 'silent',
    plugins: [walletPage()],
    // Every dependency is ESM: served as-is, so no optimizer run can reload the page mid-test.
    optimizeDeps: { noDiscovery: true, include: [] },
    server: { host: '127.0.0.1', port: 0, strictPort: true, hmr: false, fs: { allow: [root] } },
  });
  await vite.listen();
  const address = vite.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('vite did not listen');
  pageUrl = `http://127.0.0.1:${address.port}${PAGE}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function ready(page: Page): Promise<void> {
  await page.waitForFunction(() => window.walletReady === true, undefined, { timeout: 30_000 });
}

describe('browser wallet on IndexedDB', () => {
  it('keeps its key, DID and credentials across a real page reload', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pageUrl);
    await ready(page);
    const name = `wallet-${Date.now()}`;
    const before = (await page.evaluate((n) => window.walletTest.create(n), name)) as {
      did: string;
      publicKeyMultibase: string;
      signature: string;
      credentialId: string;
      extractable: boolean;
    };
    expect(before.did).toMatch(/^did:key:z6Mk/);
    expect(before.extractable).toBe(false); // a non-extractable WebCrypto key

    await page.reload();
    await ready(page);
    const after = (await page.evaluate((n) => window.walletTest.reopen(n), name)) as Record<string, unknown>;
    expect(after).toEqual({
      did: before.did,
      publicKeyMultibase: before.publicKeyMultibase,
      signature: before.signature, // Ed25519 is deterministic: the very same key signed
      keys: 1,
      credentialIds: [before.credentialId],
      presented: [before.credentialId],
      valid: true,
    });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('applies the credential-store rules in IndexedDB: idempotent re-add, CREDENTIAL_CONFLICT, CREDENTIAL_STORE_FULL, CREDENTIAL_STORE_CORRUPT for a planted record', async () => {
    const page = await browser.newPage();
    await page.goto(pageUrl);
    await ready(page);
    expect(await page.evaluate((n) => window.walletTest.rules(n), `rules-${Date.now()}`)).toEqual({
      again: 'accepted',
      conflict: 'CREDENTIAL_CONFLICT',
      full: 'CREDENTIAL_STORE_FULL',
      planted: 'CREDENTIAL_STORE_CORRUPT',
    });
    await page.close();
  }, 60_000);
});
