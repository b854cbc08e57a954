import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/decisions.md opens with an index of its decisions: one line per `## D-nnn` heading, in
 * order, each with its status. A superseded decision says so in the first line of its body; a
 * decision whose tuning history moved to docs/performance.md links to an anchor there.
 */
const docs = path.resolve(import.meta.dirname, '../../docs');
const text = fs.readFileSync(path.join(docs, 'decisions.md'), 'utf8');
const performance = fs.readFileSync(path.join(docs, 'performance.md'), 'utf8');

interface Entry {
  number: number;
  title: string;
  /** The body's lines, without the heading. */
  body: string[];
}

const entries: Entry[] = text
  .split(/^(?=## D-\d{3} )/m)
  .slice(1)
  .map((part) => {
    const [heading, ...body] = part.split('\n');
    const m = /^## D-(\d{3}) (.+)$/.exec(heading!)!;
    return { number: Number(m[1]), title: m[2]!, body };
  });

const STATUS = /^(current|unused|superseded by (D-\d{3}(?:, D-\d{3})*))$/;
const UNUSED_TITLE = '(number not used)';
const SUPERSEDED_NOTE = /^\*\*Superseded by (D-\d{3}(?:, D-\d{3})*)\*\*: \S/;

interface IndexLine {
  number: number;
  title: string;
  status: string;
}

function indexLines(): IndexLine[] {
  const index = /<!-- index:[^\n]*-->\n([\s\S]*?)\n<!-- end of index -->/.exec(text);
  expect(index, 'the index block').not.toBeNull();
  return index![1]!.split('\n').map((line) => {
    const m = /^- D-(\d{3}) (.+) — ([^—]+)$/.exec(line);
    expect(m, `index line "${line}" reads "- D-nnn <title> — <status>"`).not.toBeNull();
    return { number: Number(m![1]), title: m![2]!, status: m![3]! };
  });
}

const label = (n: number) => `D-${String(n).padStart(3, '0')}`;
const numbersIn = (list: string) => list.split(', ').map((d) => Number(d.slice(2)));

describe('docs/decisions.md', () => {
  it('has decisions', () => {
    expect(entries.length).toBeGreaterThan(100);
  });

  it('its index lists every decision, in the order they stand, with their titles', () => {
    expect(indexLines().map((l) => `${label(l.number)} ${l.title}`)).toEqual(entries.map((e) => `${label(e.number)} ${e.title}`));
  });

  it('gives each decision a status: current, superseded by later decisions, or unused for a number never assigned', () => {
    const numbers = new Set(entries.map((e) => e.number));
    for (const line of indexLines()) {
      const m = STATUS.exec(line.status);
      expect(m, `${label(line.number)}: status "${line.status}"`).not.toBeNull();
      expect(line.status === 'unused', `${label(line.number)}: "unused" exactly for a number not used`).toBe(line.title === UNUSED_TITLE);
      for (const by of m![2] ? numbersIn(m![2]) : []) {
        expect(numbers.has(by), `${label(line.number)} is superseded by ${label(by)}, which exists`).toBe(true);
        expect(by, `${label(line.number)} is superseded by a later decision`).toBeGreaterThan(line.number);
      }
    }
  });

  it('says so in the first line of a superseded decision, naming the same decisions, and nowhere else', () => {
    const status = new Map(indexLines().map((l) => [l.number, l.status]));
    for (const entry of entries) {
      const note = SUPERSEDED_NOTE.exec(entry.body[0] ?? '');
      const indexed = /^superseded by (.+)$/.exec(status.get(entry.number) ?? '');
      expect(note?.[1] ?? null, `${label(entry.number)}: the body's first line against the index's status`).toBe(indexed?.[1] ?? null);
      const later = entry.body.slice(1).find((line) => SUPERSEDED_NOTE.test(line));
      expect(later, `${label(entry.number)}: a superseded note only as the first line`).toBeUndefined();
    }
  });

  it('numbers its decisions from D-001 in steps of one: increasing, each once, no hole', () => {
    expect(entries.map((e) => e.number)).toEqual(entries.map((_, i) => i + 1));
  });

  it('links each decision whose tuning history moved to an anchor of docs/performance.md that heads that history', () => {
    const anchors = [...performance.matchAll(/^<a id="(d-\d{3})"><\/a>\n\n### (D-\d{3}) (.+)$/gm)];
    expect(anchors.length).toBeGreaterThan(0);
    const linked = new Set<string>();
    for (const entry of entries) {
      for (const [, anchor] of entry.body.join('\n').matchAll(/\]\(performance\.md#(d-\d{3})\)/g)) {
        expect(anchor, `${label(entry.number)} links to its own history`).toBe(label(entry.number).toLowerCase());
        linked.add(anchor!);
      }
    }
    for (const [, anchor, number, title] of anchors) {
      expect(number!.toLowerCase(), `anchor ${anchor} heads its own decision's history`).toBe(anchor);
      const entry = entries.find((e) => label(e.number) === number);
      expect(entry?.title, `${number}'s history in performance.md has the decision's title`).toBe(title);
      expect(linked.has(anchor!), `${number} in decisions.md links to its history`).toBe(true);
    }
    expect([...linked].sort()).toEqual(anchors.map((a) => a[1]).sort());
  });
});
