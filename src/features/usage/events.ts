import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/events.js';

export const usageEvents = {
  VerificationMetered: defineEvent(
    'VerificationMetered',
    z.object({
      account_id: z.uuid(),
      month: z.string().regex(/^\d{4}-\d{2}$/),
      verification_id: z.uuid(),
      overage: z.boolean(),
      price: z.number().nonnegative(),
      metered_at: z.iso.datetime(),
    }),
  ),
  /** A reservation given back: its verification was never queued (the upload failed after metering), or failed by a service fault. */
  MeteringReleased: defineEvent('MeteringReleased', z.object({ verification_id: z.uuid(), released_at: z.iso.datetime() })),
} as const;
export type UsageEvent = EventOf<typeof usageEvents>;
