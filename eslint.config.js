// ESLint: typescript-eslint's type-checked rules plus the layer arrows of docs/architecture.md.
// Each zone below is one "never" arrow; import-x resolves every import to its file, so a
// relative path cannot sneak around a rule.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

const PRODUCT = [
  'wallet/**/*.ts',
  'issuer/**/*.ts',
  'verifier-worker/**/*.ts',
  'console/**/*.ts',
  'cli/**/*.ts',
  'demo/**/*.ts',
  'tools/**/*.ts',
];

/** `target` may import nothing from `from`, apart from `except` (paths relative to `from`). */
const never = (target, from, except, message) => ({ target, from, ...(except ? { except } : {}), message });
const walletOnly = (layer, allowed) =>
  never(
    `./wallet/${layer}`,
    './wallet',
    [layer, ...allowed].map((l) => `./${l}`),
    `wallet/${layer} may import only ${allowed.join(', ') || 'itself'}`,
  );

// wallet/reasons (the reason-code registry) is the bottom layer: every layer may import it, it
// imports nothing.
const withReasons = (layer, allowed) => walletOnly(layer, ['reasons', ...allowed]);

const ZONES = [
  walletOnly('reasons', []),
  withReasons('crypto', []),
  withReasons('net', ['crypto']),
  withReasons('jsonld', ['crypto']),
  withReasons('did', ['crypto', 'net']),
  withReasons('status', ['crypto', 'net']),
  withReasons('keystore', ['crypto']),
  withReasons('http-signatures', ['crypto']),
  withReasons('vc', ['crypto', 'net', 'jsonld', 'did', 'status', 'http-signatures']),
  withReasons('a2a', ['crypto', 'net', 'did', 'status', 'vc']),
  withReasons('contract', ['crypto', 'vc']),
  withReasons('client', ['crypto', 'net', 'did', 'status', 'keystore', 'http-signatures', 'vc', 'contract']),
  withReasons('agent', ['crypto', 'net', 'did', 'status', 'keystore', 'http-signatures', 'vc', 'contract']),
  never('./wallet', './issuer', null, 'nothing in wallet/ imports issuer/'),
  never('./wallet', './verifier-worker', null, 'nothing in wallet/ imports verifier-worker/'),
  never('./wallet', './console', null, 'nothing in wallet/ imports console/'),
  never('./wallet', './cli', null, 'nothing in wallet/ imports cli/'),
  never('./verifier-worker', './issuer', null, 'verifier-worker never imports issuer/'),
  never('./issuer', './wallet/client', null, 'issuer/ takes wire types from wallet/contract, not wallet/client'),
  never('./issuer', './console', null, 'issuer/ serves the console bundle; it does not import its code'),
  never('./console', './issuer', null, 'the console is an API client: wallet/contract, not issuer/'),
  never('./cli', './issuer', null, 'the CLI is an API client: wallet/contract, not issuer/'),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/fixtures/**', 'test/artifacts/**', '**/*.d.ts'] },
  {
    files: [...PRODUCT, 'test/**/*.ts', 'bench/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: ZONES }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests read untyped JSON responses on purpose (what a client gets is the assertion); the
    // unsafe-any family would only add casts there. Product code keeps the full set.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement async interfaces without awaiting; vitest's expect(obj.fn) reads a method
      // unbound on purpose; node:http handlers in fixtures may be async (vitest reports rejections).
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: PRODUCT,
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression > TSAsExpression > TSUnknownKeyword',
          message: 'no `as unknown as`: parse or narrow instead',
        },
      ],
    },
  },
);
