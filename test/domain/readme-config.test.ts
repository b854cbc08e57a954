import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDocumentation } from '../../src/core/config.js';

describe('README configuration table', () => {
  it('lists exactly the variables the service reads', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(listed).toEqual(Object.keys(configDocumentation).sort());
  });
});
