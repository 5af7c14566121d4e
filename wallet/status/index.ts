/** Bitstring Status List v1.0: lists, entries, list credentials and the verifier's client. See docs/status-lists.md. */
export {
  StatusListError,
  statusProcessingError,
  type StatusListErrorCode,
  type StatusProcessingError,
} from './errors.ts';
export {
  createStatusList,
  getStatus,
  setStatus,
  statusListFromBytes,
  MIN_STATUS_LIST_ENTRIES,
  type StatusBitstring,
  type CreateStatusListOptions,
} from './bitstring.ts';
export { encodeStatusList, decodeStatusList, type DecodeStatusListOptions } from './encoded-list.ts';
export { allocateIndex, type AllocateIndexOptions, type UsedIndexes } from './allocate.ts';
export {
  buildStatusListCredential,
  buildStatusListEntry,
  parseStatusListCredential,
  parseStatusListEntry,
  checkStatus,
  type BitstringStatusListCredential,
  type BitstringStatusListEntry,
  type StatusListCredentialInput,
  type StatusListEntryInput,
  type StatusMessage,
  type StatusResult,
} from './credential.ts';
export {
  createStatusListClient,
  type StatusListClient,
  type StatusListClientOptions,
  type StatusCheckResult,
} from './client.ts';
