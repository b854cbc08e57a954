import { describe, expect, it } from 'vitest';
import { gradePair } from '../../src/analysis/grading.js';
import type { AnalysisName, AnalysisResult } from '../../src/analysis/types.js';

const r = (analysis: AnalysisName, result: boolean | null, details: Record<string, unknown> = {}): AnalysisResult => ({
  analysis,
  result,
  confidence_score: 0.9,
  details,
});
const genuine = (over: Partial<Record<AnalysisName, boolean | null>> = {}) =>
  [
    r('raw_integrity', true),
    r('ssim', true, { ssim: 0.98 }),
    r('perceptual_hash', true, { similarity: 0.96 }),
    r('color_histogram', true, { similarity: 0.99 }),
    r('processing_chain', true),
    r('exif', true, { mismatched_fields: [] }),
    r('sensor_pattern', true),
    r('recapture', true),
  ].map((x) => (x.analysis in over ? { ...x, result: over[x.analysis]! } : x));

describe('gradePair (spec section 1 grading rules)', () => {
  it.each([
    ['all analyses pass', genuine(), {}, 'verified'],
    ['rule 1: no EXIF (exif null) still verified', genuine({ exif: null }), {}, 'verified'],
    ['rule 1: EXIF contradiction flags', genuine({ exif: false }), {}, 'flagged'],
    ['rule 2: multi-frame composite, covered part matches', genuine(), { multiFrame: true }, 'unrated'],
    ['rule 2: multi-frame with EXIF mismatch is still unrated, never flagged', genuine({ exif: false }), { multiFrame: true }, 'unrated'],
    ['content changed inside the frame of a composite flags', genuine({ ssim: false }), { multiFrame: true }, 'flagged'],
    ['rule 3: unsupported variant', [], { unsupportedVariant: { format: 'DNG', variant: 'VC-5' } }, 'unrated'],
    ['another scene', genuine(), { registrationFailed: true }, 'flagged'],
    ['local edit (processing chain)', genuine({ processing_chain: false }), {}, 'flagged'],
    ['pHash mismatch', genuine({ perceptual_hash: false }), {}, 'flagged'],
    ['histogram mismatch', genuine({ color_histogram: false }), {}, 'flagged'],
    ['recaptured screen', genuine({ recapture: false }), {}, 'flagged'],
    ['periodic peaks on a sensor recapture is not calibrated on: unrated, never flagged', genuine({ recapture: false }), { recaptureUncalibrated: 'CRW' }, 'unrated'],
    ['an edit on such a sensor still flags', genuine({ recapture: false, ssim: false }), { recaptureUncalibrated: 'CRW' }, 'flagged'],
    ['fake sensor data', genuine({ raw_integrity: false }), {}, 'flagged'],
    ['converter-written RAW, pixels match', genuine({ raw_integrity: false }), { rawConverted: true }, 'provisional'],
    ['integrity undecided', genuine({ raw_integrity: null }), {}, 'provisional'],
    ['sensor pattern inconclusive does not block', genuine({ sensor_pattern: null }), {}, 'verified'],
  ] as const)('%s → %s', (_name, results, facts, level) => {
    const g = gradePair([...results], facts);
    expect(g.assurance_level).toBe(level);
    expect(g.capture_verified).toBe(level === 'verified');
    expect(g.result).toBe(level === 'verified' || level === 'provisional');
    if (level === 'unrated') expect(g.verdict).toBe('unrated');
    else expect(g.verdict).toBeNull();
  });

  it('integrity undecided while another analysis is undecided too grades unrated, never flagged', () => {
    const integrity = r('raw_integrity', null, { checks: { photon_transfer: { verdict: 'undecided' }, noise_whiteness: { verdict: 'pass' } }, coreChecks: ['photon_transfer', 'noise_whiteness'] });
    const g = gradePair([integrity, ...genuine({ processing_chain: null }).slice(1)]);
    expect(g.assurance_level).toBe('unrated');
    expect(g.assurance_reason).toMatch(/photon_transfer/);
    expect(g.assurance_reason).toMatch(/processing_chain/);
    const provisional = gradePair([integrity, ...genuine().slice(1)]);
    expect(provisional.assurance_level).toBe('provisional');
    expect(provisional.assurance_reason).toMatch(/undecided: photon_transfer/);
  });

  it('a RAW flagged for fabrication names the evidence', () => {
    const integrity = r('raw_integrity', false, { checks: { interpolation_periodicity: { verdict: 'fail' }, photon_transfer: { verdict: 'undecided' } } });
    const g = gradePair([integrity, ...genuine().slice(1)]);
    expect(g.assurance_level).toBe('flagged');
    expect(g.assurance_reason).toBe('The RAW does not hold real sensor data (evidence: interpolation_periodicity).');
  });

  it('names the undecodable variant (rule 3)', () => {
    expect(gradePair([], { unsupportedVariant: { format: 'DNG', variant: 'VC-5' } }).assurance_reason).toContain('VC-5');
  });

  it('result_confidence is the mean export similarity', () => {
    expect(gradePair(genuine()).result_confidence).toBeCloseTo((0.98 + 0.96 + 0.99) / 3, 4);
    expect(gradePair([]).result_confidence).toBe(0);
  });
});
