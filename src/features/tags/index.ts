/**
 * The tags feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). Each line is used by another feature.
 */
export { changeVerificationTags, createTag, deleteTag, listTags, type TagRef, type TagView } from './use-cases.js';
export { MAX_TAG_NAME_LENGTH } from './names.js';
