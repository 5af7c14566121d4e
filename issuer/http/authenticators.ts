/**
 * The middleware behind each `auth` kind of the route table (wallet/contract/endpoint.ts
 * `EndpointAuth`), built once per app from the configuration.
 */
import type { IssuerConfig } from '../config/index.ts';
import { adminAuth } from './admin-auth.ts';
import { agentAuth } from './agent-auth.ts';
import type { Authenticators } from './mount.ts';

export interface AuthenticatorDeps {
  config: Pick<IssuerConfig, 'adminApiKey' | 'openEnrollment' | 'introspectionKeys'>;
  /** True when `secret` is the current client secret of `did` (constant time). */
  isAgentSecret: (did: string, secret: string | undefined) => Promise<boolean>;
}

export function createAuthenticators({ config, isAgentSecret }: AuthenticatorDeps): Authenticators {
  const { adminApiKey } = config;
  return {
    admin: adminAuth({ adminApiKey }),
    'admin-or-open': adminAuth({ adminApiKey, openWhen: () => config.openEnrollment }),
    agent: agentAuth({ adminApiKey, isAgentSecret }),
    introspection: adminAuth({
      adminApiKey,
      otherKeys: config.introspectionKeys.map((key) => ({ key, actor: 'introspection' })),
    }),
  };
}
