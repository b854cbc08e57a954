/**
 * The one fold of a PSD export's events (issue 35): what each event sets on the export's read
 * model (projection.ts writes it) and what the audit bundle shows of it, which the offline
 * verifier (src/core/audit/audit-verify.ts) rebuilds from the bundle's hashed events with this same
 * code. Imports nothing and uses no Node built-in: the auditor's page loads it in the browser.
 */

/** An event as the fold reads it: a bundle's event or a stored one. */
export interface ReplayedEvent {
  type: string;
  data: Record<string, any>;
  metadata: { occurred_at: string; account_id?: string | null };
}

/** The verification's current export: a regeneration replaces it. */
export interface PsdExportState {
  account_id: string | null;
  export_id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'expired';
  file_size_bytes: number | null;
  canvas_width: number | null;
  canvas_height: number | null;
  downloads_used: number;
  expires_at: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * What one event does: a request starts a new current export (`requested`), every other step
 * changes the export it names, and only while that export is still the current one.
 */
export type PsdExportChange = { kind: 'requested'; state: PsdExportState } | { kind: 'step'; export_id: string; columns: Partial<PsdExportState> };

export function psdExportChange(event: ReplayedEvent): PsdExportChange | null {
  const d = event.data;
  switch (event.type) {
    case 'PsdExportRequested':
      return {
        kind: 'requested',
        state: {
          account_id: event.metadata.account_id ?? null,
          export_id: d.export_id,
          status: 'queued',
          file_size_bytes: null,
          canvas_width: null,
          canvas_height: null,
          downloads_used: 0,
          expires_at: null,
          error: null,
          created_at: d.requested_at,
          updated_at: d.requested_at,
        },
      };
    case 'PsdExportStarted':
      return { kind: 'step', export_id: d.export_id, columns: { status: 'in_progress', updated_at: d.started_at } };
    case 'PsdExportCompleted':
      return {
        kind: 'step',
        export_id: d.export_id,
        columns: { status: 'completed', file_size_bytes: d.file_size_bytes, canvas_width: d.canvas_width, canvas_height: d.canvas_height, expires_at: d.expires_at, updated_at: d.completed_at },
      };
    case 'PsdExportFailed':
      return { kind: 'step', export_id: d.export_id, columns: { status: 'failed', error: d.reason, updated_at: d.failed_at } };
    case 'PsdExportDownloaded':
      return { kind: 'step', export_id: d.export_id, columns: { downloads_used: d.downloads_used, updated_at: d.downloaded_at } };
    case 'PsdExportExpired':
      return { kind: 'step', export_id: d.export_id, columns: { status: 'expired', updated_at: d.expired_at } };
    default:
      return null;
  }
}

/** Folds a PSD export stream in order: the current export, or null when none was requested. */
export function foldPsdExport(events: readonly ReplayedEvent[]): PsdExportState | null {
  let state: PsdExportState | null = null;
  for (const event of events) {
    const change = psdExportChange(event);
    if (!change) continue;
    if (change.kind === 'requested') state = { ...change.state };
    else if (state && state.export_id === change.export_id) Object.assign(state, change.columns);
  }
  return state;
}

const iso = (value: string | Date | null | undefined): string | null => (value === null || value === undefined ? null : new Date(value).toISOString());

/** The audit bundle's `psd_export` (format 2), from a fold or from the read model's row. */
export const auditedPsdExport = (state: PsdExportState) => ({
  export_id: state.export_id,
  status: state.status,
  file_size_bytes: state.file_size_bytes === null ? null : Number(state.file_size_bytes),
  canvas_width: state.canvas_width ?? null,
  canvas_height: state.canvas_height ?? null,
  downloads_used: Number(state.downloads_used),
  expires_at: iso(state.expires_at),
  error: state.error ?? null,
  created_at: iso(state.created_at)!,
  updated_at: iso(state.updated_at)!,
});

/** The PSD export stream's replay for the audit bundle and its verifier (src/core/audit/audit-verify.ts BundleReplays). */
export function replayStream(events: readonly ReplayedEvent[]): Record<string, unknown> | null {
  const state = foldPsdExport(events);
  return state ? auditedPsdExport(state) : null;
}
