import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** docs/decisions.md opens with an index of its decisions: one line per `## D-nnn` heading, in order. */
const file = path.resolve(import.meta.dirname, '../../docs/decisions.md');

describe('docs/decisions.md', () => {
  const text = fs.readFileSync(file, 'utf8');
  const headings = [...text.matchAll(/^## (D-\d{3}) (.+)$/gm)].map((m) => `${m[1]} ${m[2]}`);

  it('its index lists every decision, in the order they stand, with their titles', () => {
    const index = /<!-- index:[^\n]*-->\n([\s\S]*?)\n<!-- end of index -->/.exec(text);
    expect(index, 'the index block').not.toBeNull();
    expect(index![1]!.split('\n').map((line) => line.replace(/^- /, ''))).toEqual(headings);
  });

  it('numbers its decisions in increasing order, each once', () => {
    const numbers = headings.map((h) => Number(h.slice(2, 5)));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});
