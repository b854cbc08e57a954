import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalogue } from '../../src/modules.js';

describe('error catalogue', () => {
  it('matches docs/errors.md code for code and status for status', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
    const documented = Object.fromEntries(
      [...doc.matchAll(/^\| ([A-Z_]+) \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(documented).toEqual({ ...errorCatalogue });
  });
});
