import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';

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
  /**
   * A PSD export's place in the month, taken when it is requested (the budget edge is decided
   * here, exactly, at the stream's revision); it becomes a charge only by PsdExportMetered.
   */
  PsdExportReserved: defineEvent(
    'PsdExportReserved',
    z.object({
      account_id: z.uuid(),
      month: z.string().regex(/^\d{4}-\d{2}$/),
      verification_id: z.uuid(),
      export_id: z.uuid(),
      overage: z.boolean(),
      price: z.number().nonnegative(),
      reserved_at: z.iso.datetime(),
    }),
  ),
  /** The export completed: its reservation is charged (spec 8: metered on completion). */
  PsdExportMetered: defineEvent('PsdExportMetered', z.object({ export_id: z.uuid(), verification_id: z.uuid(), metered_at: z.iso.datetime() })),
  /** The export failed: its reservation is given back, never charged. */
  PsdExportReleased: defineEvent('PsdExportReleased', z.object({ export_id: z.uuid(), verification_id: z.uuid(), released_at: z.iso.datetime() })),
} as const;
export type UsageEvent = EventOf<typeof usageEvents>;
