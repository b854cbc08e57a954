import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import type { StoredEvent } from '../../core/es/event-store.js';
import { parseEvent } from '../../core/es/events.js';
import { DEADLINE_REASON, GENERIC_REASON, SERVICE_FAULT_REASON } from '../../../workflows/verifications/workflow.js';
import { verificationDecider, type RenditionInput, type VerificationCommand } from './decider.js';
import { verificationEvents, type AnalysisData, type GradeData, type StoredFile, type VerificationEvent } from './events.js';

const VERIFICATION = '0d000000-0000-4000-8000-000000000001';
const OWNER = '0a000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = '0a000000-0000-4000-8000-000000000002';
const ANONYMOUS = '0a000000-0000-4000-8000-0000000000a0';
const OTHER_ANONYMOUS = '0a000000-0000-4000-8000-0000000000a1';
const NEW_OWNER = '0a000000-0000-4000-8000-000000000003';

const QUEUED_AT = new Date('2026-03-01T10:00:00.000Z');
const NOW = new Date('2026-03-01T10:02:00.000Z');
const T = NOW.toISOString();

const file = (name: string, format: string, content_type: string): StoredFile => ({
  blob_key: `verifications/${VERIFICATION}/${name}`,
  filename: name,
  format,
  content_type,
  size: 1234,
  sha256: 'a'.repeat(64),
  sha512: 'b'.repeat(128),
});
const image = file('photo.jpg', 'jpeg', 'image/jpeg');
const raw = file('photo.cr3', 'cr3', 'image/x-canon-cr3');

type QueuedData = Extract<VerificationEvent, { type: 'VerificationQueued' }>['data'];
const queuedData = (overrides: Partial<QueuedData> = {}): QueuedData => ({
  verification_id: VERIFICATION,
  account_id: OWNER,
  mode: 'raw_pair',
  name: 'Harbour at dawn',
  short_code: 'AB12CD',
  pipeline_build: 'build-1',
  image,
  raw,
  queued_at: QUEUED_AT.toISOString(),
  anonymous: false,
  capture: null,
  billing: { counted: true, overage: false, price_eur: 0 },
  ...overrides,
});

type AnalysisInput = Omit<AnalysisData, 'recorded_at'>;
const analysis = (n: number, name: AnalysisData['analysis']): AnalysisInput => ({
  result_id: `0f000000-0000-4000-8000-00000000000${n}`,
  analysis: name,
  result: true,
  confidence_score: 0.9,
  details: { n },
});
const ssim = analysis(1, 'ssim');
const phash = analysis(2, 'perceptual_hash');
const exif = analysis(3, 'exif');

const grade: Omit<GradeData, 'graded_at'> = {
  assurance_level: 'verified',
  assurance_reason: 'The image was rendered from the RAW.',
  verdict: null,
  verdict_reason: null,
  capture_verified: false,
  result: true,
  result_confidence: 0.97,
  evidence_report: null,
  raw_metadata: { make: 'Canon' },
  image_metadata: { format: 'jpeg' },
  rendition_info: {},
  rendition_corrected_info: {},
};

// Events
const queued = (overrides: Partial<QueuedData> = {}): VerificationEvent => ({ type: 'VerificationQueued', data: queuedData(overrides) });
const started: VerificationEvent = { type: 'VerificationStarted', data: { started_at: '2026-03-01T10:00:01.000Z' } };
const recorded = (a: AnalysisInput, at = T): VerificationEvent => ({ type: 'AnalysisRecorded', data: { ...a, recorded_at: at } });
const graded = (at = T): VerificationEvent => ({ type: 'VerificationGraded', data: { ...grade, graded_at: at } });
type Kind = RenditionInput['kind'];
const rendition = (kind: Kind): RenditionInput => ({ kind, blob_key: `verifications/${VERIFICATION}/${kind}.png`, content_type: 'image/png', sha256: 'c'.repeat(64) });
const renditionStored = (kind: Kind, at = T): VerificationEvent => ({ type: 'RenditionStored', data: { ...rendition(kind), stored_at: at } });
const completed: VerificationEvent = { type: 'VerificationCompleted', data: { completed_at: T } };
const failed: VerificationEvent = { type: 'VerificationFailed', data: { failure_reason: 'Deadline passed.', fault: 'service', failed_at: T } };
const claimed: VerificationEvent = {
  type: 'VerificationClaimed',
  data: { previous_owner_account_id: ANONYMOUS, new_owner_account_id: NEW_OWNER, claimed_at: T },
};
const deleted = (blobKeys: string[]): VerificationEvent => ({ type: 'VerificationDeleted', data: { deleted_at: T, blob_keys: blobKeys } });

// Commands
const queue = (overrides: Partial<QueuedData> = {}): VerificationCommand => ({ type: 'Queue', data: queuedData(overrides) });
const start: VerificationCommand = { type: 'Start', now: NOW };
const gradeWith = (results: AnalysisInput[], renditions: Kind[] = []): VerificationCommand => ({ type: 'Grade', renditions: renditions.map(rendition), results, grade, now: NOW });
const storeRenditions = (...kinds: Kind[]): VerificationCommand => ({ type: 'StoreRenditions', renditions: kinds.map(rendition), now: NOW });
const completeWith = (...kinds: Kind[]): VerificationCommand => ({ type: 'Complete', renditions: kinds.map(rendition), now: NOW });
const complete = completeWith();
const fail: VerificationCommand = { type: 'Fail', reason: 'Deadline passed.', fault: 'service', now: NOW };
const deleteBy = (accountId: string): VerificationCommand => ({ type: 'Delete', account_id: accountId, now: NOW });
const claim = (anonymousId = ANONYMOUS): VerificationCommand => ({ type: 'Claim', anonymous_account_id: anonymousId, new_owner_account_id: NEW_OWNER, now: NOW });
const discardRaw: VerificationCommand = { type: 'DiscardRaw', now: NOW };
const DAY = 86_400_000;
const closeClaimWindow = (at: Date): VerificationCommand => ({ type: 'CloseClaimWindow', now: at });
const rawDiscarded: VerificationEvent = { type: 'RawFileDiscarded', data: { blob_key: raw.blob_key, sha256: raw.sha256, discarded_at: T } };
const windowClosed = (at: Date, blobKeys: string[]): VerificationEvent => ({ type: 'ClaimWindowClosed', data: { closed_at: at.toISOString(), blob_keys: blobKeys } });

/** Steps a finished (completed, failed or deleted) verification ignores. */
const workflowSteps: [string, VerificationCommand][] = [
  ['Queue', queue()],
  ['Start', start],
  ['Grade', gradeWith([exif], ['heatmap'])],
  ['StoreRenditions', storeRenditions('signed_image')],
  ['Complete', completeWith('thumbnail')],
  ['Fail', fail],
];

describe('verificationDecider', () => {
  describe('given no verification', () => {
    it('Queue queues the verification as given', () => {
      given(verificationDecider, []).when(queue()).then([queued()]);
    });

    it('Start decides nothing', () => {
      given(verificationDecider, []).when(start).thenNothing();
    });

    it('Complete decides nothing', () => {
      given(verificationDecider, []).when(complete).thenNothing();
    });

    it('Fail decides nothing', () => {
      given(verificationDecider, []).when(fail).thenNothing();
    });

    it('Delete is rejected with VERIFICATION_NOT_FOUND', () => {
      given(verificationDecider, []).when(deleteBy(OWNER)).thenThrows('VERIFICATION_NOT_FOUND');
    });

    it('Claim decides nothing', () => {
      given(verificationDecider, []).when(claim()).thenNothing();
    });

    it('Grade decides nothing', () => {
      given(verificationDecider, []).when(gradeWith([ssim], ['heatmap'])).thenNothing();
    });

    it('StoreRenditions decides nothing', () => {
      given(verificationDecider, []).when(storeRenditions('thumbnail')).thenNothing();
    });

    it('Complete with a rendition decides nothing', () => {
      given(verificationDecider, []).when(completeWith('thumbnail')).thenNothing();
    });
  });

  describe('given a queued verification', () => {
    const history = [queued()];

    it('Queue again decides nothing (idempotent), even with other data', () => {
      given(verificationDecider, history).when(queue({ name: 'Another name' })).thenNothing();
    });

    it('Start starts it', () => {
      given(verificationDecider, history).when(start).then([{ type: 'VerificationStarted', data: { started_at: T } }]);
    });

    it('Complete decides nothing, its renditions neither (not graded)', () => {
      given(verificationDecider, history).when(completeWith('thumbnail')).thenNothing();
    });

    it('Fail fails it', () => {
      given(verificationDecider, history).when(fail).then([failed]);
    });

    it('Delete by the owner deletes it, naming the image and RAW blobs', () => {
      given(verificationDecider, history).when(deleteBy(OWNER)).then([deleted([image.blob_key, raw.blob_key])]);
    });

    it('Delete by another account is rejected with VERIFICATION_NOT_FOUND', () => {
      given(verificationDecider, history).when(deleteBy(OTHER_ACCOUNT)).thenThrows('VERIFICATION_NOT_FOUND');
    });

    it('Claim decides nothing (it is not anonymous)', () => {
      given(verificationDecider, [queued({ account_id: ANONYMOUS })]).when(claim()).thenNothing();
    });
  });

  describe('given an image-only verification', () => {
    it('Delete by the owner names only the image blob (and renditions)', () => {
      given(verificationDecider, [queued({ mode: 'image_only', raw: null }), started, renditionStored('thumbnail')])
        .when(deleteBy(OWNER))
        .then([deleted([image.blob_key, `verifications/${VERIFICATION}/thumbnail.png`])]);
    });
  });

  describe('given a verification in progress', () => {
    const history = [queued(), started];

    it('Start again decides nothing (idempotent)', () => {
      given(verificationDecider, history).when(start).thenNothing();
    });

    it('Grade records the renditions, one event per result, then the grade, in one batch', () => {
      given(verificationDecider, history)
        .when(gradeWith([ssim, phash], ['heatmap', 'raw_reference']))
        .then([renditionStored('heatmap'), renditionStored('raw_reference'), recorded(ssim), recorded(phash), graded()]);
    });

    it('Grade without results or renditions records the grade alone', () => {
      given(verificationDecider, history).when(gradeWith([])).then([graded()]);
    });

    it('Grade records an analysis or a rendition given twice once (the first)', () => {
      given(verificationDecider, history)
        .when(gradeWith([ssim, { ...ssim, result_id: '0f000000-0000-4000-8000-000000000009' }], ['heatmap', 'heatmap']))
        .then([renditionStored('heatmap'), recorded(ssim), graded()]);
    });

    it('StoreRenditions records each rendition, in the order given', () => {
      given(verificationDecider, history).when(storeRenditions('signed_image', 'badge')).then([renditionStored('signed_image'), renditionStored('badge')]);
    });

    it('StoreRenditions of none decides nothing', () => {
      given(verificationDecider, history).when(storeRenditions()).thenNothing();
    });

    it('Complete decides nothing (not graded)', () => {
      given(verificationDecider, history).when(complete).thenNothing();
    });

    it('Fail fails it', () => {
      given(verificationDecider, history).when(fail).then([failed]);
    });

    it('Delete by the owner deletes it', () => {
      given(verificationDecider, history).when(deleteBy(OWNER)).then([deleted([image.blob_key, raw.blob_key])]);
    });
  });

  // Earlier versions recorded renditions, analyses and grade in separate appends: a run killed
  // between them left part of the batch recorded, and Grade records only the rest.
  describe('given a rendition and some analyses recorded but no grade', () => {
    const history = [queued(), started, renditionStored('heatmap', '2026-03-01T10:01:00.000Z'), recorded(ssim, '2026-03-01T10:01:00.000Z'), recorded(phash, '2026-03-01T10:01:00.000Z')];

    it('Grade with the same results records only the grade', () => {
      given(verificationDecider, history).when(gradeWith([ssim, phash], ['heatmap'])).then([graded()]);
    });

    it('Grade records only the renditions and analyses not yet recorded, then the grade', () => {
      given(verificationDecider, history).when(gradeWith([ssim, phash, exif], ['heatmap', 'raw_reference'])).then([renditionStored('raw_reference'), recorded(exif), graded()]);
    });

    it('Grade skips an analysis already recorded even under a new result id', () => {
      given(verificationDecider, history).when(gradeWith([{ ...ssim, result_id: '0f000000-0000-4000-8000-000000000009', result: false }])).then([graded()]);
    });
  });

  describe('given a graded verification', () => {
    const history = [queued(), started, recorded(ssim), graded()];

    it('Grade again decides nothing (idempotent), even with other results, renditions and grade', () => {
      given(verificationDecider, history)
        .when({ type: 'Grade', renditions: [rendition('heatmap')], results: [exif], grade: { ...grade, assurance_level: 'flagged', result: false }, now: NOW })
        .thenNothing();
    });

    it('StoreRenditions records the renditions', () => {
      given(verificationDecider, history).when(storeRenditions('signed_image', 'badge')).then([renditionStored('signed_image'), renditionStored('badge')]);
    });

    it('Complete completes it', () => {
      given(verificationDecider, history).when(complete).then([completed]);
    });

    it('Complete with the thumbnail records it, then the completion, in one batch', () => {
      given(verificationDecider, history).when(completeWith('thumbnail')).then([renditionStored('thumbnail'), completed]);
    });

    it('Fail fails it (graded is not yet completed)', () => {
      given(verificationDecider, history).when(fail).then([failed]);
    });
  });

  describe('given renditions stored', () => {
    const history = [queued(), started, graded(), renditionStored('heatmap'), renditionStored('signed_image')];

    it('StoreRenditions of kinds already stored decides nothing (idempotent)', () => {
      given(verificationDecider, history).when(storeRenditions('heatmap', 'signed_image')).thenNothing();
    });

    it('StoreRenditions records only the kinds not yet stored', () => {
      given(verificationDecider, history).when(storeRenditions('signed_image', 'badge')).then([renditionStored('badge')]);
    });

    it('Complete with a rendition already stored records the completion alone', () => {
      given(verificationDecider, history).when(completeWith('signed_image')).then([completed]);
    });

    it('Delete by the owner names image, RAW and every rendition, in the order stored', () => {
      given(verificationDecider, history)
        .when(deleteBy(OWNER))
        .then([
          deleted([
            image.blob_key,
            raw.blob_key,
            `verifications/${VERIFICATION}/heatmap.png`,
            `verifications/${VERIFICATION}/signed_image.png`,
          ]),
        ]);
    });
  });

  describe('given a completed verification', () => {
    const history = [queued(), started, recorded(ssim), graded(), renditionStored('thumbnail'), completed];

    it.each(workflowSteps)('%s decides nothing', (_name, command) => {
      given(verificationDecider, history).when(command).thenNothing();
    });

    it('Delete by the owner deletes it, naming its blobs', () => {
      given(verificationDecider, history)
        .when(deleteBy(OWNER))
        .then([deleted([image.blob_key, raw.blob_key, `verifications/${VERIFICATION}/thumbnail.png`])]);
    });

    it('Delete by another account is rejected with VERIFICATION_NOT_FOUND', () => {
      given(verificationDecider, history).when(deleteBy(OTHER_ACCOUNT)).thenThrows('VERIFICATION_NOT_FOUND');
    });
  });

  describe('given a failed verification', () => {
    const history = [queued(), started, failed];

    it.each(workflowSteps)('%s decides nothing', (_name, command) => {
      given(verificationDecider, history).when(command).thenNothing();
    });

    it('Delete by the owner deletes it', () => {
      given(verificationDecider, history).when(deleteBy(OWNER)).then([deleted([image.blob_key, raw.blob_key])]);
    });
  });

  describe('a failure records whose fault it is (VerificationFailed.fault)', () => {
    it('Fail records the fault the workflow gives', () => {
      const reason = 'The RAW is not a Canon CR2 this service can read.';
      given(verificationDecider, [queued(), started]).when({ type: 'Fail', reason, fault: 'input', now: NOW }).then([{ type: 'VerificationFailed', data: { failure_reason: reason, fault: 'input', failed_at: T } }]);
    });

    const stored = (data: Record<string, unknown>): StoredEvent => ({
      id: '0e000000-0000-4000-8000-000000000001', type: 'VerificationFailed', version: 1, data, stream: `verification-${VERIFICATION}`, revision: 2, position: 3n, recorded_at: T,
      metadata: { account_id: OWNER, actor: { type: 'system', id: 'workflow' }, causation_id: 'c', correlation_id: 'c', processing_region: 'eu', occurred_at: T },
    } as StoredEvent);
    const faultOf = (data: Record<string, unknown>) => (parseEvent(verificationEvents, stored(data))!.data as { fault: string }).fault;

    it('an event recorded with its fault keeps it, whatever its reason says', () => {
      expect(faultOf({ failure_reason: DEADLINE_REASON, fault: 'input', failed_at: T })).toBe('input');
      expect(faultOf({ failure_reason: 'The file is not a JPEG.', fault: 'service', failed_at: T })).toBe('service');
    });

    it('an event recorded before the field is upcast from its reason: the service\'s own reasons are its fault, any other the input\'s', () => {
      for (const reason of [DEADLINE_REASON, SERVICE_FAULT_REASON, GENERIC_REASON]) expect(faultOf({ failure_reason: reason, failed_at: T })).toBe('service');
      expect(faultOf({ failure_reason: 'The file is not a JPEG.', failed_at: T })).toBe('input');
    });
  });

  describe('given a deleted verification', () => {
    const history = [queued({ account_id: ANONYMOUS, anonymous: true }), started, deleted([image.blob_key, raw.blob_key])];

    it.each(workflowSteps)('%s decides nothing', (_name, command) => {
      given(verificationDecider, history).when(command).thenNothing();
    });

    it('Delete again is rejected with VERIFICATION_NOT_FOUND', () => {
      given(verificationDecider, history).when(deleteBy(ANONYMOUS)).thenThrows('VERIFICATION_NOT_FOUND');
    });

    it('Claim decides nothing', () => {
      given(verificationDecider, history).when(claim()).thenNothing();
    });
  });

  describe('given an anonymous verification', () => {
    const history = [queued({ account_id: ANONYMOUS, anonymous: true })];

    it('Claim by its anonymous owner moves it to the new owner', () => {
      given(verificationDecider, history).when(claim()).then([claimed]);
    });

    it('Claim naming another anonymous owner decides nothing', () => {
      given(verificationDecider, history).when(claim(OTHER_ANONYMOUS)).thenNothing();
    });

    it('Claim of a completed one moves it too', () => {
      given(verificationDecider, [...history, started, graded(), completed]).when(claim()).then([claimed]);
    });

    it('Delete by the anonymous owner deletes it', () => {
      given(verificationDecider, history).when(deleteBy(ANONYMOUS)).then([deleted([image.blob_key, raw.blob_key])]);
    });
  });

  describe('given a claimed verification', () => {
    const history = [queued({ account_id: ANONYMOUS, anonymous: true }), claimed];

    it('Claim again decides nothing (idempotent)', () => {
      given(verificationDecider, history).when(claim()).thenNothing();
    });

    it('Delete by the new owner deletes it', () => {
      given(verificationDecider, history).when(deleteBy(NEW_OWNER)).then([deleted([image.blob_key, raw.blob_key])]);
    });

    it('Delete by the previous anonymous owner is rejected with VERIFICATION_NOT_FOUND', () => {
      given(verificationDecider, history).when(deleteBy(ANONYMOUS)).thenThrows('VERIFICATION_NOT_FOUND');
    });
  });

  describe('retention: the RAW discarded once finished (DiscardRaw)', () => {
    it('a completed pair records RawFileDiscarded with the RAW\'s key and hash', () => {
      given(verificationDecider, [queued(), started, graded(), completed]).when(discardRaw).then([rawDiscarded]);
    });

    it('with the full-size rendering made just before (a pair analysed before it was kept): the rendition first, then the discard', () => {
      given(verificationDecider, [queued(), started, graded(), completed])
        .when({ type: 'DiscardRaw', renditions: [rendition('raw_rendition')], now: NOW })
        .then([renditionStored('raw_rendition'), rawDiscarded]);
    });

    it('a failed pair too', () => {
      given(verificationDecider, [queued(), started, failed]).when(discardRaw).then([rawDiscarded]);
    });

    it('once: a second DiscardRaw decides nothing', () => {
      given(verificationDecider, [queued(), started, graded(), completed, rawDiscarded]).when(discardRaw).thenNothing();
    });

    it('not while the verification runs: its analysis reads the RAW', () => {
      given(verificationDecider, [queued(), started, graded()]).when(discardRaw).thenNothing();
    });

    it('nothing for an image-only verification (no RAW)', () => {
      given(verificationDecider, [queued({ mode: 'image_only', raw: null }), started, graded(), completed]).when(discardRaw).thenNothing();
    });

    it('a deletion after the discard does not list the RAW\'s file again', () => {
      given(verificationDecider, [queued(), started, graded(), completed, rawDiscarded]).when(deleteBy(OWNER)).then([deleted([image.blob_key])]);
    });
  });

  describe('retention: the anonymous claim window (CloseClaimWindow)', () => {
    const anonymous = [queued({ account_id: ANONYMOUS, anonymous: true }), started, graded(), renditionStored('thumbnail'), completed];
    const end = new Date(QUEUED_AT.getTime() + 30 * DAY);

    it('at its end, an unclaimed record closes with every file it has', () => {
      given(verificationDecider, anonymous).when(closeClaimWindow(end)).then([windowClosed(end, [image.blob_key, raw.blob_key, `verifications/${VERIFICATION}/thumbnail.png`])]);
    });

    it('a RAW already discarded is not listed again', () => {
      given(verificationDecider, [...anonymous, rawDiscarded]).when(closeClaimWindow(end)).then([windowClosed(end, [image.blob_key, `verifications/${VERIFICATION}/thumbnail.png`])]);
    });

    it('a millisecond before its end, nothing', () => {
      given(verificationDecider, anonymous).when(closeClaimWindow(new Date(end.getTime() - 1))).thenNothing();
    });

    it('a claimed record keeps its files', () => {
      given(verificationDecider, [...anonymous, claimed]).when(closeClaimWindow(end)).thenNothing();
    });

    it('an account\'s record has no claim window', () => {
      given(verificationDecider, [queued(), started, graded(), completed]).when(closeClaimWindow(end)).thenNothing();
    });

    it('once: closed again decides nothing', () => {
      given(verificationDecider, [...anonymous, windowClosed(end, [])]).when(closeClaimWindow(end)).thenNothing();
    });

    it('a claim after it closed is refused with CLAIM_EXPIRED, even one decided before the end (the sweep won the stream)', () => {
      given(verificationDecider, [...anonymous, windowClosed(end, [])]).when(claim()).thenThrows('CLAIM_EXPIRED');
      given(verificationDecider, [...anonymous, windowClosed(end, [])]).when({ ...claim(), now: new Date(end.getTime() - 1) } as VerificationCommand).thenThrows('CLAIM_EXPIRED');
    });

    it('at the instant it ends a claim is refused with CLAIM_EXPIRED and the sweep closes it: never both', () => {
      given(verificationDecider, anonymous).when({ ...claim(), now: end } as VerificationCommand).thenThrows('CLAIM_EXPIRED');
      given(verificationDecider, anonymous).when(closeClaimWindow(end)).then([windowClosed(end, [image.blob_key, raw.blob_key, `verifications/${VERIFICATION}/thumbnail.png`])]);
    });

    it('a millisecond before it ends a claim moves the record and the sweep then leaves it', () => {
      const before = new Date(end.getTime() - 1);
      const [moved] = given(verificationDecider, anonymous).when({ ...claim(), now: before } as VerificationCommand).then([{ ...claimed, data: { ...claimed.data, claimed_at: before.toISOString() } } as VerificationEvent]);
      given(verificationDecider, [...anonymous, moved!]).when(closeClaimWindow(end)).thenNothing();
    });

    it('a deletion after it closed lists no file', () => {
      given(verificationDecider, [...anonymous, windowClosed(end, [])]).when(deleteBy(ANONYMOUS)).then([deleted([])]);
    });
  });
});
