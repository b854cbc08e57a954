import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDocumentation } from '../../src/core/config.js';

const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

describe('README configuration table', () => {
  it('lists exactly the variables the service reads', () => {
    const listed = [...readme.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(listed).toEqual(Object.keys(configDocumentation).sort());
  });

  it("says what each variable means in the service's own words (src/core/config.ts), not a copy that drifts", () => {
    const rows = [...readme.matchAll(/^\| `([A-Z0-9_]+)` \| [^|]* \| (.*) \|$/gm)];
    expect(rows.length).toBe(Object.keys(configDocumentation).length);
    for (const [, name, meaning] of rows) expect(meaning, name).toBe(configDocumentation[name as keyof typeof configDocumentation]);
  });
});
