/**
 * The issuer API's route table: every endpoint by name, each defined once in its contract module.
 * The issuer mounts exactly these (issuer/app.ts), `IssuerClient.call` and the console call by
 * these names, and the OpenAPI document is generated from them.
 */
import { agentEndpoints } from './agents.ts';
import { apiDocsEndpoints } from './api-docs.ts';
import { auditEndpoints } from './audit.ts';
import { didEndpoints } from './dids.ts';
import { enrollmentEndpoints } from './enrollment.ts';
import { consoleEndpoints } from './console.ts';
import { oauthEndpoints } from './oauth.ts';
import { credentialEndpoints } from './credentials.ts';
import { challengeEndpoints } from './challenges.ts';
import { documentEndpoints } from './documents.ts';
import { healthEndpoints } from './health.ts';
import { vpVerifyEndpoints } from './vp-verify.ts';
import { statusListEndpoints } from './status-lists.ts';
import { vcApiEndpoints } from './vc-api.ts';

export const ROUTES = {
  ...statusListEndpoints,
  ...enrollmentEndpoints,
  ...consoleEndpoints,
  ...vcApiEndpoints,
  ...agentEndpoints,
  ...oauthEndpoints,
  ...apiDocsEndpoints,
  ...credentialEndpoints,
  ...didEndpoints,
  ...auditEndpoints,
  ...challengeEndpoints,
  ...documentEndpoints,
  ...healthEndpoints,
  ...vpVerifyEndpoints,
} as const;

export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;
