/**
 * The issuer API's wire contract, defined once: every request, response and error body as a zod
 * schema, and its TypeScript type inferred from it. The issuer validates with these schemas and
 * publishes them (GET /v1/openapi.json); `IssuerClient`, the CLI and the console read the types
 * (`import type` in browser code, so no zod is bundled there).
 */
export * from './primitives.ts';
export * from './errors.ts';
export * from './enrollment.ts';
export * from './credentials.ts';
export * from './agents.ts';
export * from './dids.ts';
export * from './audit.ts';
export * from './vp-verify.ts';
export * from './status-lists.ts';
export * from './challenges.ts';
export * from './health.ts';
export * from './console.ts';
export * from './vc-api.ts';
export * from './oauth.ts';
