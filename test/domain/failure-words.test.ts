import { describe, expect, it } from 'vitest';
import { explainFailure, type FailedFiles } from '../../src/features/verifications/failure.js';
import { DEADLINE_REASON, GENERIC_REASON, SERVICE_FAULT_REASON } from '../../workflows/verifications/workflow.js';

/** A failure in plain words (issue 39 item 2): from the recorded reason and fault, never blaming the files for the service's fault. */
const pair: FailedFiles = { mode: 'raw_pair', image: { filename: 'IMG_1.JPG', format: 'jpeg' }, raw: { filename: 'IMG_1.CR3', format: 'CR3' } };
const single: FailedFiles = { mode: 'image_only', image: { filename: 'scan.png', format: 'png' }, raw: null };

describe('explainFailure', () => {
  it('says the service’s own fault is not the files’, whatever the recorded reason names', () => {
    for (const reason of [DEADLINE_REASON, GENERIC_REASON, SERVICE_FAULT_REASON, 'This CR3 file cannot be analysed: the decoder stalled.']) {
      const words = explainFailure({ reason, fault: 'service' }, pair);
      expect(words.summary).toContain('This is not a problem with your files');
      expect(words.summary).not.toContain('could not be analysed');
      expect(words.next).toBe('Upload the same files again: the photo IMG_1.JPG (JPEG) with its RAW file IMG_1.CR3 (CR3). If it fails again, try again later.');
      expect(words.recorded).toBe(reason);
    }
    expect(explainFailure({ reason: DEADLINE_REASON, fault: 'service' }, pair).summary).toContain('within the 10 minutes');
  });

  it('names the refused file and the formats taken', () => {
    const raw = explainFailure({ reason: "This CR3 file cannot be analysed: it has no media data ('mdat') box.", fault: 'input' }, pair);
    expect(raw.summary).toBe('The RAW file IMG_1.CR3 (CR3) could not be analysed.');
    expect(raw.next).toContain('exactly as the camera wrote it');
    expect(raw.next).toContain('CR3');
    const image = explainFailure({ reason: 'The JPEG is truncated: no end-of-image marker.', fault: 'input' }, pair);
    expect(image.summary).toBe('The photo IMG_1.JPG (JPEG) could not be analysed.');
    expect(image.next).toContain('JPEG or HEIF/HEIC');
    const alone = explainFailure({ reason: 'Something about the file.', fault: 'input' }, single);
    expect(alone.summary).toBe('The photo scan.png (PNG) could not be analysed.');
    expect(alone.next).toBe('Upload the original file again, complete: JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF or GIF.');
    const unsaid = explainFailure({ reason: 'The files do not belong together.', fault: 'input' }, pair);
    expect(unsaid.summary).toBe('The files of this pair could not be analysed.');
  });
});
