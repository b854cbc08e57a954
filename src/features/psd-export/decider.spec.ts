import { describe, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { psdExportDecider, type ExportableFacts, type PsdExportCommand } from './decider.js';
import type { PsdExportEvent } from './events.js';
import { PSD_EXPORT_TTL_MS, PSD_MAX_CANVAS_PIXELS, PSD_MAX_SIDE } from '../../../workflows/psd-export/policy.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const DONE = new Date('2026-03-01T10:01:00.000Z');
const EXPIRES = new Date(DONE.getTime() + PSD_EXPORT_TTL_MS);
const LATER = new Date('2026-03-02T10:00:00.000Z');
const URL_END = new Date(LATER.getTime() + 300_000);
const FIRST = '0c000000-0000-4000-8000-000000000001';
const SECOND = '0c000000-0000-4000-8000-000000000002';
const KEY = `verifications/0b000000-0000-4000-8000-000000000001/export.psd`;
const FILE = { blob_key: KEY, sha256: 'a'.repeat(64), file_size_bytes: 1234, canvas_width: 3504, canvas_height: 2336 };

const completedPair: ExportableFacts = { status: 'completed', mode: 'raw_pair', canvas: { width: 3504, height: 2336 } };
const request = (export_id = FIRST, verification: Partial<ExportableFacts> = completedPair, now = T0): PsdExportCommand => ({ type: 'Request', export_id, verification: { ...completedPair, ...verification }, now });
const pairOf = (width: number, height: number): ExportableFacts => ({ ...completedPair, canvas: { width, height } });
const start = (export_id = FIRST): PsdExportCommand => ({ type: 'Start', export_id, now: T0 });
const complete = (export_id = FIRST): PsdExportCommand => ({ type: 'Complete', export_id, now: DONE, ...FILE });
const fail = (export_id = FIRST): PsdExportCommand => ({ type: 'Fail', export_id, reason: 'the RAW could not be decoded', now: DONE });
const download = (now = LATER): PsdExportCommand => ({ type: 'Download', now, url_expires_at: new Date(now.getTime() + 300_000) });
const expire = (now: Date, export_id = FIRST): PsdExportCommand => ({ type: 'Expire', export_id, now });

const requested = (export_id = FIRST, regeneration = false, at = T0): PsdExportEvent => ({ type: 'PsdExportRequested', data: { export_id, regeneration, requested_at: at.toISOString() } });
const started = (export_id = FIRST): PsdExportEvent => ({ type: 'PsdExportStarted', data: { export_id, started_at: T0.toISOString() } });
const completed = (export_id = FIRST): PsdExportEvent => ({
  type: 'PsdExportCompleted',
  data: { export_id, ...FILE, completed_at: DONE.toISOString(), expires_at: EXPIRES.toISOString() },
});
const failed = (export_id = FIRST): PsdExportEvent => ({ type: 'PsdExportFailed', data: { export_id, reason: 'the RAW could not be decoded', failed_at: DONE.toISOString() } });
const downloaded = (n: number): PsdExportEvent => ({ type: 'PsdExportDownloaded', data: { export_id: FIRST, downloads_used: n, downloaded_at: LATER.toISOString(), url_expires_at: URL_END.toISOString() } });
const expired = (export_id = FIRST): PsdExportEvent => ({ type: 'PsdExportExpired', data: { export_id, blob_key: KEY, expired_at: EXPIRES.toISOString() } });

const ready = [requested(), started(), completed()];

describe('PSD export decider', () => {
  describe('nothing requested', () => {
    it('records the request of a completed RAW+JPEG verification', () => given(psdExportDecider, []).when(request()).then([requested()]));
    it('refuses an image-only verification', () => given(psdExportDecider, []).when(request(FIRST, { mode: 'image_only' })).thenThrows('VALIDATION_ERROR'));
    it('refuses a verification not completed', () => given(psdExportDecider, []).when(request(FIRST, { status: 'in_progress' })).thenThrows('VALIDATION_ERROR'));
    it('refuses a failed verification', () => given(psdExportDecider, []).when(request(FIRST, { status: 'failed' })).thenThrows('VALIDATION_ERROR'));
    it('refuses a photo wider than a PSD can be (30,000 px a side), however few its pixels', () => given(psdExportDecider, []).when(request(FIRST, pairOf(PSD_MAX_SIDE + 1, 2400))).thenThrows('PSD_CANVAS_TOO_LARGE'));
    it('refuses a photo taller than a PSD can be', () => given(psdExportDecider, []).when(request(FIRST, pairOf(600, PSD_MAX_SIDE + 1))).thenThrows('PSD_CANVAS_TOO_LARGE'));
    it('refuses a canvas beyond the pixels one export may have', () => given(psdExportDecider, []).when(request(FIRST, pairOf(12_000, 8_000))).thenThrows('PSD_CANVAS_TOO_LARGE'));
    it('records the largest canvas accepted', () => given(psdExportDecider, []).when(request(FIRST, pairOf(PSD_MAX_CANVAS_PIXELS / 5_000, 5_000))).then([requested()]));
    it('records a request whose canvas was not recorded (the build checks it)', () => given(psdExportDecider, []).when(request(FIRST, { canvas: null })).then([requested()]));
    it('has nothing to download', () => given(psdExportDecider, []).when(download()).thenThrows('PSD_EXPORT_NOT_FOUND'));
    it('has nothing to start, complete, fail or expire', () => {
      given(psdExportDecider, []).when(start()).thenNothing();
      given(psdExportDecider, []).when(complete()).thenNothing();
      given(psdExportDecider, []).when(fail()).thenNothing();
      given(psdExportDecider, []).when(expire(EXPIRES)).thenNothing();
    });
  });

  describe('queued', () => {
    it('returns the export unchanged on a second request', () => given(psdExportDecider, [requested()]).when(request(SECOND)).thenNothing());
    it('records the start once', () => {
      given(psdExportDecider, [requested()]).when(start()).then([started()]);
      given(psdExportDecider, [requested(), started()]).when(start()).thenNothing();
    });
    it('is not ready for download', () => given(psdExportDecider, [requested()]).when(download()).thenThrows('PSD_NOT_READY'));
    it('ignores steps of another export', () => given(psdExportDecider, [requested()]).when(complete(SECOND)).thenNothing());
  });

  describe('in progress', () => {
    it('completes, expiring 30 days after completion', () => given(psdExportDecider, [requested(), started()]).when(complete()).then([completed()]));
    it('fails with its reason', () => given(psdExportDecider, [requested(), started()]).when(fail()).then([failed()]));
    it('is not ready for download', () => given(psdExportDecider, [requested(), started()]).when(download()).thenThrows('PSD_NOT_READY'));
    it('returns the export unchanged on a second request', () => given(psdExportDecider, [requested(), started()]).when(request(SECOND)).thenNothing());
  });

  describe('completed', () => {
    it('completes once (a resumed run completing again changes nothing)', () => given(psdExportDecider, ready).when(complete()).thenNothing());
    it('cannot fail any more', () => given(psdExportDecider, ready).when(fail()).thenNothing());
    it('returns the export unchanged on a second request', () => given(psdExportDecider, ready).when(request(SECOND)).thenNothing());
    it('counts the first download', () => given(psdExportDecider, ready).when(download()).then([downloaded(1)]));
    it('counts the fifth download', () => given(psdExportDecider, [...ready, ...[1, 2, 3, 4].map(downloaded)]).when(download()).then([downloaded(5)]));
    it('refuses a sixth', () => given(psdExportDecider, [...ready, ...[1, 2, 3, 4, 5].map(downloaded)]).when(download()).thenThrows('DOWNLOAD_LIMIT_REACHED'));
    it('is downloadable until the last millisecond of its 30 days', () => given(psdExportDecider, ready).when(download(new Date(EXPIRES.getTime() - 1))).then([{ ...downloaded(1), data: { ...downloaded(1).data, downloaded_at: new Date(EXPIRES.getTime() - 1).toISOString(), url_expires_at: new Date(EXPIRES.getTime() - 1 + 300_000).toISOString() } } as PsdExportEvent]));
    it('answers EXPIRED from its 30th day on, before the expiry is recorded', () => given(psdExportDecider, ready).when(download(EXPIRES)).thenThrows('EXPIRED'));
    it('is not expired before its 30 days', () => given(psdExportDecider, ready).when(expire(new Date(EXPIRES.getTime() - 1))).thenNothing());
    it('expires after 30 days, naming the file deleted', () => given(psdExportDecider, ready).when(expire(EXPIRES)).then([expired()]));
  });

  describe('failed', () => {
    const history = [requested(), started(), failed()];
    it('regenerates on a new request, free of charge', () => given(psdExportDecider, history).when(request(SECOND, completedPair, LATER)).then([requested(SECOND, true, LATER)]));
    it('is not ready for download', () => given(psdExportDecider, history).when(download()).thenThrows('PSD_NOT_READY'));
    it('fails once', () => given(psdExportDecider, history).when(fail()).thenNothing());
  });

  describe('expired', () => {
    const history = [...ready, downloaded(1), expired()];
    it('answers EXPIRED to a download', () => given(psdExportDecider, history).when(download(new Date(EXPIRES.getTime() + 1))).thenThrows('EXPIRED'));
    it('is expired once', () => given(psdExportDecider, history).when(expire(EXPIRES)).thenNothing());
    it('regenerates on a new request, free of charge, with fresh downloads', () => {
      given(psdExportDecider, history).when(request(SECOND, completedPair, LATER)).then([requested(SECOND, true, LATER)]);
      given(psdExportDecider, [...history, requested(SECOND, true, LATER), started(SECOND), completed(SECOND)]).when(download()).then([{ ...downloaded(1), data: { ...downloaded(1).data, export_id: SECOND } } as PsdExportEvent]);
    });
    it('ignores a late expiry of the old export once regenerated', () => given(psdExportDecider, [...history, requested(SECOND, true, LATER)]).when(expire(EXPIRES)).thenNothing());
  });
});
