import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { VERIFICATION_WORKFLOW_TYPE } from '../../workflows/verifications/workflow.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount, startTestService, uploadImage, type TestService } from '../support/service.js';

/**
 * A run killed between two steps resumes and finishes without recording anything twice. Each
 * case copies the first events of a real verification's stream under a fresh id (what a run
 * killed right after them leaves), starts the workflow on it, and expects the whole life of
 * the original: the same facts in the same order, each once. Some cut points are step
 * boundaries of the batched steps; others fall between appends earlier versions made
 * separately (results before the grade, the signed image before the badge, the thumbnail
 * before the completion), which streams recorded then still hold.
 */
const pairDir = path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2');

const fact = (e: StoredEvent) => (e.type === 'RenditionStored' ? `RenditionStored ${e.data.kind}` : e.type);

for (const target of databaseTargets) {
  describe(`verification runs resumed between steps on ${target.name}`, () => {
    let t: TestService;
    let call: ReturnType<typeof client>;
    let token: string;
    const templates: Record<'imageOnly' | 'pair', StoredEvent[]> = { imageOnly: [], pair: [] };

    const streamOf = (id: string) => t.service.deps.store.readStream(`verification-${id}`);

    async function completed(id: string) {
      await t.settled();
      return (await call('GET', `/v1/verifications/${id}`, { token })).body;
    }

    /** The template's events up to and including the first `cutAfter`, under a fresh id; the workflow started on it. */
    async function resumeAfter(template: StoredEvent[], cutAfter: string): Promise<{ id: string; copiedResults: string[] }> {
      const cut = template.findIndex((e) => fact(e) === cutAfter);
      expect(cut, cutAfter).toBeGreaterThan(0);
      const id = crypto.randomUUID();
      const original = template[0]!.data.verification_id as string;
      const events = template.slice(0, cut + 1).map((e) => ({
        id: crypto.randomUUID(),
        type: e.type,
        version: e.version,
        // The files stay where the original's are; the result ids must be new (they are the results' keys).
        data: e.type === 'VerificationQueued' ? { ...e.data, verification_id: id } : e.type === 'AnalysisRecorded' ? { ...e.data, result_id: crypto.randomUUID() } : e.data,
        metadata: { ...e.metadata, correlation_id: e.metadata.correlation_id === original ? id : e.metadata.correlation_id },
      }));
      await t.service.deps.store.append(`verification-${id}`, events, { expectedRevision: 'no_stream' });
      await t.service.deps.workflows.start(VERIFICATION_WORKFLOW_TYPE, id, {});
      return { id, copiedResults: events.filter((e) => e.type === 'AnalysisRecorded').map((e) => e.data.result_id as string) };
    }

    /** Completed with the template's facts, in its order, each once; returns the view and the stream. */
    async function expectWholeLife(id: string, template: StoredEvent[]) {
      const v = await completed(id);
      expect(v.status).toBe('completed');
      const stream = await streamOf(id);
      expect(stream.map(fact)).toEqual(template.map(fact));
      expect(v.results).toHaveLength(template.filter((e) => e.type === 'AnalysisRecorded').length);
      return { v, stream };
    }

    /** The results are the ones recorded before the kill: the analysis did not run again. */
    const resultIds = (v: { results: { id: string }[] }) => v.results.map((r) => r.id).sort();

    beforeAll(async () => {
      // The copies share the template's files: its RAW must outlive its completion (RAW_RETENTION's default discards it then).
      t = await startTestService(target, { RAW_RETENTION: 'keep' });
      call = client(t.url);
      ({ token } = await registerAccount(call));
      const imageOnly = await uploadImage(t.url, token, 'c2pa/pt_truepic-20230212-camera.jpg');
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(pairDir, 'IMG_5952.camera-preview.jpg')))]), 'IMG_5952.jpg');
      form.append('raw', new Blob([new Uint8Array(fs.readFileSync(path.join(pairDir, 'IMG_5952.CR2')))]), 'IMG_5952.CR2');
      const pair = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      expect(pair.status).toBe(201);
      const pairId = (await pair.json()).id as string;
      expect((await completed(imageOnly)).status).toBe('completed');
      expect((await completed(pairId)).assurance_level).toBe('verified');
      templates.imageOnly = await streamOf(imageOnly);
      templates.pair = await streamOf(pairId);
    }, 240_000);

    afterAll(async () => {
      await t?.stop();
    });

    it('an image-only run killed after its start analyses, grades and completes once', async () => {
      const { id } = await resumeAfter(templates.imageOnly, 'VerificationStarted');
      await expectWholeLife(id, templates.imageOnly);
    });

    it('an image-only run killed after its grade makes the thumbnail and completes, without a second analysis', async () => {
      const { id, copiedResults } = await resumeAfter(templates.imageOnly, 'VerificationGraded');
      const { v } = await expectWholeLife(id, templates.imageOnly);
      expect(resultIds(v)).toEqual(copiedResults.sort());
    });

    it('a run an earlier version left with its results but no grade records the grade alone, then completes', async () => {
      const { id, copiedResults } = await resumeAfter(templates.imageOnly, 'AnalysisRecorded');
      const { v } = await expectWholeLife(id, templates.imageOnly);
      expect(resultIds(v)).toEqual(copiedResults.sort());
    });

    it('a run an earlier version left with its thumbnail but not completed completes once', async () => {
      const { id } = await resumeAfter(templates.imageOnly, 'RenditionStored thumbnail');
      await expectWholeLife(id, templates.imageOnly);
    });

    it('a verified pair killed after its grade signs, renders and completes once, without a second analysis', async () => {
      const { id, copiedResults } = await resumeAfter(templates.pair, 'VerificationGraded');
      const { v } = await expectWholeLife(id, templates.pair);
      expect(resultIds(v)).toEqual(copiedResults.sort());
      expect(v).toMatchObject({ assurance_level: 'verified', result: true });
      expect((await call('GET', `/v1/verifications/${id}/renditions/signed/original`, { token })).status).toBe(302);
    });

    it('a pair an earlier version left with its signed image but no badge adds the badge alone, then completes', async () => {
      const { id } = await resumeAfter(templates.pair, 'RenditionStored signed_image');
      await expectWholeLife(id, templates.pair);
    });
  });
}
