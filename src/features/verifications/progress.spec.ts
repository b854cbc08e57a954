import { describe, expect, it } from 'vitest';
import { progressOf } from './progress.js';

/** The steps a verification's status and level say it has reached (the live progress's only rule). */
describe('progressOf', () => {
  it('given files not yet arrived, reaches nothing', () => {
    expect(progressOf({ status: 'pending', assurance_level: null })).toEqual({ status: 'pending', reached: [], assurance_level: null, label: null });
  });
  it('given a queued verification, has received its files', () => {
    expect(progressOf({ status: 'queued', assurance_level: null }).reached).toEqual(['received']);
  });
  it('given an analysis under way, then graded, names the level as soon as it is recorded', () => {
    expect(progressOf({ status: 'in_progress', assurance_level: null }).reached).toEqual(['received', 'analysing']);
    expect(progressOf({ status: 'in_progress', assurance_level: 'verified' })).toEqual({ status: 'in_progress', reached: ['received', 'analysing', 'graded'], assurance_level: 'verified', label: 'Verified' });
  });
  it('given a completed verification, reaches every step', () => {
    expect(progressOf({ status: 'completed', assurance_level: 'unrated' })).toMatchObject({ reached: ['received', 'analysing', 'graded', 'finished'], label: 'Unrated' });
  });
  it('given a failed verification, is finished without a level, whatever level was stored (its own grey state)', () => {
    expect(progressOf({ status: 'failed', assurance_level: 'flagged' })).toEqual({ status: 'failed', reached: ['received', 'analysing', 'finished'], assurance_level: null, label: 'Not completed' });
  });
});
