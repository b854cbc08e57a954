import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DECISIONS_DIR, INDEX_FILE, SUPERSEDED_NOTE, createDecision, label, readDecisions, renderIndex } from '../../scripts/decisions-index.js';

/**
 * docs/decisions/ holds one file per decision, `D-nnn-<slug>.md` opening with `# D-nnn Title`,
 * and README.md, their index, written by scripts/decisions-index.ts from the files. A superseded
 * decision says so in the first line of its body; a decision whose tuning history moved to
 * docs/performance.md links to an anchor there.
 */
const decisions = readDecisions();
const performance = fs.readFileSync(path.join(DECISIONS_DIR, '../performance.md'), 'utf8');

describe('docs/decisions/', () => {
  it('has decisions', () => {
    expect(decisions.length).toBeGreaterThan(100);
  });

  it('its index is what scripts/decisions-index.ts writes from the decisions (run `npm run decisions:index`)', () => {
    const index = fs.readFileSync(path.join(DECISIONS_DIR, INDEX_FILE), 'utf8');
    expect(index, 'docs/decisions/README.md is stale: run `npm run decisions:index`').toBe(renderIndex(decisions));
  });

  it('numbers its decisions from D-001 in steps of one: increasing, each once, no hole', () => {
    expect(decisions.map((d) => d.number)).toEqual(decisions.map((_, i) => i + 1));
  });

  it('gives every decision a body, an unused number the reason it was never assigned', () => {
    for (const d of decisions) expect(d.body.join('\n').trim(), `${d.file} has a body under its heading`).not.toBe('');
  });

  it('supersedes a decision only by later decisions that exist', () => {
    const numbers = new Set(decisions.map((d) => d.number));
    for (const d of decisions) {
      for (const by of d.supersededBy) {
        expect(numbers.has(by), `${label(d.number)} is superseded by ${label(by)}, which exists`).toBe(true);
        expect(by, `${label(d.number)} is superseded by a later decision`).toBeGreaterThan(d.number);
      }
    }
    expect(decisions.filter((d) => d.status === 'superseded').length).toBeGreaterThan(0);
  });

  it('says a decision is superseded in the first line of its body only, and never of an unused number', () => {
    for (const d of decisions) {
      const later = d.body.slice(1).find((line) => SUPERSEDED_NOTE.test(line));
      expect(later, `${label(d.number)}: a superseded note only as the first line`).toBeUndefined();
      if (d.status === 'unused') expect(d.supersededBy, `${label(d.number)} was never assigned`).toEqual([]);
    }
  });

  it('links each decision whose tuning history moved to an anchor of docs/performance.md that heads that history', () => {
    const anchors = [...performance.matchAll(/^<a id="(d-\d{3})"><\/a>\n\n### (D-\d{3}) (.+)$/gm)];
    expect(anchors.length).toBeGreaterThan(0);
    const linked = new Set<string>();
    for (const d of decisions) {
      for (const [, anchor] of d.body.join('\n').matchAll(/\]\(\.\.\/performance\.md#(d-\d{3})\)/g)) {
        expect(anchor, `${label(d.number)} links to its own history`).toBe(label(d.number).toLowerCase());
        linked.add(anchor!);
      }
    }
    for (const [, anchor, number, title] of anchors) {
      expect(number!.toLowerCase(), `anchor ${anchor} heads its own decision's history`).toBe(anchor);
      const d = decisions.find((e) => label(e.number) === number);
      expect(d?.title, `${number}'s history in performance.md has the decision's title`).toBe(title);
      expect(linked.has(anchor!), `${number}'s file links to its history`).toBe(true);
    }
    expect([...linked].sort()).toEqual(anchors.map((a) => a[1]).sort());
  });

  it('reads each status from the decision itself, numbers a new one next, and names a file it cannot read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'decisions-'));
    try {
      fs.writeFileSync(path.join(dir, 'D-001-first.md'), '# D-001 First\n**Superseded by D-002**: the second holds.\nWhy.\n');
      fs.writeFileSync(path.join(dir, 'D-002-second.md'), '# D-002 Second\n\nWhy.\n');
      fs.writeFileSync(path.join(dir, 'D-003-number-not-used.md'), '# D-003 (number not used)\nNever assigned.\n');
      expect(readDecisions(dir).map((d) => [d.number, d.status, d.supersededBy])).toEqual([
        [1, 'superseded', [2]],
        [2, 'current', []],
        [3, 'unused', []],
      ]);
      const created = createDecision('Area: a fourth (issue 1 item 2)', dir);
      expect(path.basename(created)).toBe('D-004-area-a-fourth.md');
      expect(fs.readFileSync(created, 'utf8')).toBe('# D-004 Area: a fourth (issue 1 item 2)\n\n');
      fs.writeFileSync(path.join(dir, 'D-005-Fifth.md'), '# D-005 Fifth\nWhy.\n');
      expect(() => readDecisions(dir)).toThrow(/D-005-Fifth\.md: a decision's file is named D-nnn-<slug>\.md/);
      fs.renameSync(path.join(dir, 'D-005-Fifth.md'), path.join(dir, 'D-005-fifth.md'));
      fs.writeFileSync(path.join(dir, 'D-005-fifth.md'), '## D-005 Fifth\nWhy.\n');
      expect(() => readDecisions(dir)).toThrow(/D-005-fifth\.md: the first line is the heading "# D-nnn Title"/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
