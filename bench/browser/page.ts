// The page of bench/browser.ts: the wallet's sources, bundled by Vite, and the bench's cases
// over them, as one function on globalThis that Playwright calls.
import * as wallet from '../../wallet/index.ts';
import { benchCases } from './cases.ts';

(globalThis as { mandateBench?: unknown }).mandateBench = (backend: 'webcrypto' | 'noble', count: number) =>
  benchCases(wallet, backend, count);
