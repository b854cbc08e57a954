import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The lint of CI (`npm run lint`, issue 37 item 4) keeps its rules on: each is an error in every
 * folder tsconfig.json types, so nobody turns one off silently, and the real configuration, with
 * its type information, still finds each on a file that breaks it.
 */
const root = path.resolve(import.meta.dirname, '../..');
const THE_RULES = [
  '@typescript-eslint/no-floating-promises',
  '@typescript-eslint/no-misused-promises',
  '@typescript-eslint/await-thenable',
  '@typescript-eslint/switch-exhaustiveness-check',
  '@typescript-eslint/no-unused-vars',
] as const;

/** The folders (and files) tsconfig.json includes: what `npm run typecheck` checks is what the lint types. */
const included: string[] = (JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8')) as { include: string[] }).include;

/** A TypeScript file of `entry`: itself when it is one, else the first found in the folder. */
function aFileOf(entry: string): string {
  const full = path.join(root, entry);
  if (fs.statSync(full).isFile()) return full;
  const found = (fs.readdirSync(full, { recursive: true, encoding: 'utf8' }) as string[]).sort().find((name) => name.endsWith('.ts'));
  if (!found) throw new Error(`${entry}: no TypeScript file`);
  return path.join(full, found);
}

const severity = (setting: unknown) => (Array.isArray(setting) ? setting[0] : setting);

describe('the lint configuration', () => {
  // With CI=true typescript-eslint infers a single run and types the files as they are on disk,
  // which would lint this file's own text instead of the offending text below; the option turns
  // that inference off here only (`npm run lint` keeps it).
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { disallowAutomaticSingleRunInference: true } } },
  });

  it.each(included)('holds the rules as errors in %s', async (entry) => {
    const config = (await eslint.calculateConfigForFile(aFileOf(entry))) as { rules?: Record<string, unknown> } | undefined;
    const levels = Object.fromEntries(THE_RULES.map((rule) => [rule, severity(config?.rules?.[rule])]));
    expect(levels).toEqual(Object.fromEntries(THE_RULES.map((rule) => [rule, expect.toBeOneOf([2, 'error'])])));
  });

  it('finds each of them, with type information, on a file that breaks it', async () => {
    // Linted as this very file's text would be (typed by the program of tsconfig.json, which holds
    // this path); nothing is written to disk.
    const offending = [
      `import { EventEmitter } from 'node:events';`,
      `const work = async (): Promise<number> => 1;`,
      `export function floating(): void { work(); }`,
      `export function misused(emitter: EventEmitter): void { emitter.on('x', async () => { await work(); }); }`,
      `export async function notThenable(): Promise<number> { return await 1; }`,
      `export function notExhaustive(x: 'a' | 'b'): number { switch (x) { case 'a': return 1; } return 0; }`,
      `const unused = 1;`,
    ].join('\n');
    const [result] = await eslint.lintText(offending, { filePath: path.join(import.meta.dirname, 'lint-config.test.ts') });
    const found = result!.messages.map((m) => ({ line: m.line, rule: m.ruleId, severity: m.severity }));
    expect(found).toEqual([
      { line: 3, rule: '@typescript-eslint/no-floating-promises', severity: 2 },
      { line: 4, rule: '@typescript-eslint/no-misused-promises', severity: 2 },
      { line: 5, rule: '@typescript-eslint/await-thenable', severity: 2 },
      { line: 6, rule: '@typescript-eslint/switch-exhaustiveness-check', severity: 2 },
      { line: 7, rule: '@typescript-eslint/no-unused-vars', severity: 2 },
    ]);
  }, 300_000);
});
