/**
 * Canonical JSON: the one byte string a JSON value hashes as (the event hash chain, anchor
 * records, signed anchor roots; docs/audit.md). Object keys sorted by UTF-16 code units (the
 * default string sort), no whitespace, strings and numbers exactly as JSON.stringify writes them.
 * Everything else follows JSON.stringify too, so a value hashes the same before it is stored and
 * after it is read back from a JSON column: `toJSON` is honoured (dates become ISO strings),
 * object members that are undefined, functions or symbols are left out, and in arrays they, like
 * non-finite numbers, become null. A bigint throws, as in JSON.stringify.
 *
 * No imports at all: the browser's auditor page and the WebCrypto verifier load this very file.
 */
export function canonicalJson(value: unknown): string {
  const text = canonical(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form.');
  return text;
}

function canonical(input: unknown): string | undefined {
  const value = hasToJson(input) ? input.toJSON() : input;
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('canonicalJson: a bigint has no JSON form.');
    case 'object':
      if (Array.isArray(value)) return `[${value.map((item) => canonical(item) ?? 'null').join(',')}]`;
      return canonicalObject(value as Record<string, unknown>);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
}

function canonicalObject(object: Record<string, unknown>): string {
  const members: string[] = [];
  for (const key of Object.keys(object).sort()) {
    const text = canonical(object[key]);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
