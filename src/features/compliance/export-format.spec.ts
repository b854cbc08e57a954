import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './export-format.js';

describe('CSV cells (RFC 4180, safe to open in a spreadsheet)', () => {
  it('leaves plain values as they are', () => {
    expect(csvCell('VerificationQueued')).toBe('VerificationQueued');
    expect(csvCell(12)).toBe('12');
    expect(csvCell('')).toBe('');
  });

  it('quotes a value holding a comma, a quote or a line break, doubling its quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('neutralises %j, which a spreadsheet would read as a formula, with a leading apostrophe', (value) => {
    const cell = csvCell(value);
    expect(cell.replace(/^"/, '').startsWith(`'${value[0]}`)).toBe(true);
  });

  it('neutralises before quoting: a formula with a comma stays one quoted, neutralised cell', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
  });

  it('ends each record with CRLF', () => {
    expect(csvLine(['a', 1, '-b'])).toBe("a,1,'-b\r\n");
  });
});
