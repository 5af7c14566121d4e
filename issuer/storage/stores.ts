/**
 * The storage adapter seam: services see only these interfaces, never SQL. `sqlite` is the
 * one adapter today (SERVICE_STORAGE_ADAPTER); a Postgres adapter implements the same set.
 */
import { createSqliteAgentStore, type AgentStore } from './agents-store.ts';
import { createSqliteAuditStore, type AuditStore } from './audit-store.ts';
import { createSqliteCredentialStore, type CredentialStore } from './credentials-store.ts';
import type { IssuerDb } from './db.ts';
import { createSqliteDidStore, type DidStore } from './dids-store.ts';
import { createSqliteSessionStore, type SessionStore } from './sessions-store.ts';
import { createSqliteSettingsStore, type SettingsStore } from './settings-store.ts';
import { createSqliteStatusListStore, type StatusListStore } from './status-lists-store.ts';
import { createSqliteTokenStore, type TokenStore } from './tokens-store.ts';
import { createSqliteVcApiCredentialStore, type VcApiCredentialStore } from './vc-api-credentials-store.ts';

export interface IssuerStores {
  tokens: TokenStore;
  agents: AgentStore;
  credentials: CredentialStore;
  statusLists: StatusListStore;
  dids: DidStore;
  audit: AuditStore;
  settings: SettingsStore;
  sessions: SessionStore;
  vcApiCredentials: VcApiCredentialStore;
}

export function createSqliteStores(db: IssuerDb): IssuerStores {
  return {
    tokens: createSqliteTokenStore(db),
    agents: createSqliteAgentStore(db),
    credentials: createSqliteCredentialStore(db),
    statusLists: createSqliteStatusListStore(db),
    dids: createSqliteDidStore(db),
    audit: createSqliteAuditStore(db),
    settings: createSqliteSettingsStore(db),
    sessions: createSqliteSessionStore(db),
    vcApiCredentials: createSqliteVcApiCredentialStore(db),
  };
}
