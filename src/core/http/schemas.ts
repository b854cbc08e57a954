import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';

// Schemas carry OpenAPI metadata (.openapi(), .describe()) wherever they are declared.
extendZodWithOpenApi(z);

export const uuidParam = (name: string) => z.strictObject({ [name]: z.uuid() });
export const isoDate = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/** The spec's confirmation body for a completed deletion or change: `{"detail": "..."}`. */
export const confirmationSchema = z.object({ detail: z.string() }).openapi('Confirmation');
