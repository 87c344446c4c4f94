export { codeForStatus, ERRORS, ERROR_CODES, type ErrorCode, type ErrorSpec } from "./errors.js";
export {
  checkEntryPath,
  checkExistingEntryPath,
  isReservedSegment,
  pathFoldKey,
  windowsDeviceName,
  windowsReservedCharacter,
  WINDOWS_RESERVED_CHARACTERS,
  MAX_PATH_BYTES,
  MAX_SEGMENT_BYTES,
  type PathCheck,
  type PathRule,
} from "./paths.js";
export { BIDI_CONTROL_RANGES, codePointName, findInvisible, INVISIBLE_RANGES, isBidiControl, isInvisibleCodePoint } from "./invisible-characters.js";
export {
  checkNamespaceName,
  MAX_NAMESPACE_LENGTH,
  MAX_NAMESPACE_SEGMENT_LENGTH,
  MAX_NAMESPACE_SEGMENTS,
  NAMESPACE_PATTERN,
  NAMESPACE_RULE,
  namespaceFoldKey,
  type NamespaceCheck,
  type NamespaceRule,
} from "./namespace-names.js";
export { sha256Hex } from "./hashing.js";
export { fieldName, findIllFormedString, illFormedIssue, illFormedMessage, onlyIllFormed, Text, type FieldStep } from "./well-formed.js";
export { FETCH_BAD_PORTS } from "./bad-ports.js";
export { describeNetworkError } from "./network-reason.js";
export * from "./messages/common.js";
export * from "./messages/server.js";
export * from "./messages/batch.js";
export * from "./messages/changes.js";
export * from "./messages/heads.js";
export * from "./messages/block-report.js";
export * from "./messages/namespaces.js";
export * from "./messages/entries.js";
export * from "./messages/conflicts.js";
export * from "./messages/admin.js";
export { mergeText, MERGE_POLICIES, type MergePolicy, type MergeRegion, type MergeResult, type MergeInput } from "./merge/merge-text.js";
export { mergeWithoutBase } from "./merge/without-base.js";
export { eolStyle, splitLines, type EolStyle } from "./merge/lines.js";
export * from "./messages/scan-policy.js";
export * from "./messages/whoami.js";
export * from "./messages/bypasses.js";
export * from "./messages/purge.js";
export * from "./messages/audit.js";
export * from "./messages/stream.js";
