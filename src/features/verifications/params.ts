import { z } from 'zod';

/** A verification named in a path or a tool's input: its id (other features' routes and tools on a verification take it too). */
export const verificationIdParam = z.strictObject({ verification_id: z.uuid() });
