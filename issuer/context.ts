/**
 * The former name of boot.ts, kept only for issuer/routes/status-lists.ts while the route table
 * rewrites it; new code imports boot.ts (what start-up builds) or deps.ts (what services use).
 */
export type { IssuerContext } from './boot.ts';
