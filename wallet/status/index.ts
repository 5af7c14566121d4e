/** Bitstring Status List v1.0: lists, entries, list credentials and the verifier's client. See docs/status-lists.md. */
export { StatusListError, type StatusListErrorCode } from './errors.ts';
export { createStatusList, getStatus, setStatus, statusListFromBytes, MIN_STATUS_LIST_ENTRIES, type StatusBitstring } from './bitstring.ts';
export { encodeStatusList, decodeStatusList } from './encoded-list.ts';
export { allocateIndex } from './allocate.ts';
export {
  buildStatusListCredential,
  buildStatusListEntry,
  parseStatusListCredential,
  parseStatusListEntry,
  checkStatus,
  type BitstringStatusListCredential,
  type BitstringStatusListEntry,
} from './credential.ts';
export { createStatusListClient, type StatusListClient, type StatusListClientOptions, type StatusCheckResult } from './client.ts';
