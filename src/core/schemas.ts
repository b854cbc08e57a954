import { z } from 'zod';
import '../adapters/http/openapi.js';

export const uuidParam = (name: string) => z.strictObject({ [name]: z.uuid() });
export const isoDate = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);
