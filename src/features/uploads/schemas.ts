import { z } from 'zod';

/** An upload id as create_upload hands it out (tokens.ts issueUploadId): the PUT route's path parameter and a verify tool's file input. */
export const uploadIdSchema = z.string().regex(/^up_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'An upload_id from create_upload.').max(1500);
