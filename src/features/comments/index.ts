/**
 * The comments feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). Each line is used by another feature.
 */
export { addComment, deleteComment, editComment, listComments } from './use-cases.js';
export { MAX_COMMENT_LENGTH } from './decider.js';
export type { CommentView } from './view.js';
