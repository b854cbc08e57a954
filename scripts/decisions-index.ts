/**
 * The decisions live one per file in docs/decisions/, `D-nnn-<slug>.md`, each opening with its
 * heading `# D-nnn Title`. Their index, docs/decisions/README.md, is written from those files and
 * nowhere else: a decision's status is read from the decision itself (a superseded one says so in
 * the first line of its body, a number never assigned keeps a file titled "(number not used)"),
 * so the index cannot disagree with what the decisions say. test/domain/decisions-index.test.ts
 * fails when the index is not what this script writes.
 *
 *   npm run decisions:index                  rewrite the index from the files
 *   npm run decisions:new -- "Area: title"   create the next number's file with its heading, then
 *                                            rewrite the index (write the body under the heading)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const DECISIONS_DIR = path.resolve(import.meta.dirname, '../docs/decisions');
export const INDEX_FILE = 'README.md';

/** The title of a number handed out and never assigned to a decision. */
export const UNUSED_TITLE = '(number not used)';
/** A superseded decision's first body line: `**Superseded by D-nnn[, D-nnn]**: what holds now`. */
export const SUPERSEDED_NOTE = /^\*\*Superseded by (D-\d{3,}(?:, D-\d{3,})*)\*\*: \S/;
const FILE_NAME = /^D-(\d{3,})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;
const HEADING = /^# D-(\d{3,}) (\S.*)$/;

export type Status = 'current' | 'superseded' | 'unused';

export interface Decision {
  number: number;
  title: string;
  file: string;
  /** The lines after the heading. */
  body: string[];
  status: Status;
  /** The decisions that replace this one, from its superseded note. */
  supersededBy: number[];
}

export const label = (n: number) => `D-${String(n).padStart(3, '0')}`;

/** Every decision file of `dir`, by number. Throws naming the file whose name or heading is not the expected form. */
export function readDecisions(dir = DECISIONS_DIR): Decision[] {
  const decisions = fs
    .readdirSync(dir)
    .filter((file) => file !== INDEX_FILE)
    .map((file): Decision => {
      const name = FILE_NAME.exec(file);
      if (!name) throw new Error(`docs/decisions/${file}: a decision's file is named D-nnn-<slug>.md (lower-case words and digits joined by "-")`);
      const [heading = '', ...body] = fs.readFileSync(path.join(dir, file), 'utf8').replace(/\n+$/, '').split('\n');
      const m = HEADING.exec(heading);
      if (!m) throw new Error(`docs/decisions/${file}: the first line is the heading "# D-nnn Title", found "${heading}"`);
      const number = Number(m[1]);
      if (number !== Number(name[1])) throw new Error(`docs/decisions/${file}: the heading's number ${label(number)} is not the file name's`);
      const title = m[2]!;
      const note = SUPERSEDED_NOTE.exec(body[0] ?? '');
      const supersededBy = note ? note[1]!.split(', ').map((d) => Number(d.slice(2))) : [];
      const status: Status = title === UNUSED_TITLE ? 'unused' : note ? 'superseded' : 'current';
      return { number, title, file, body, status, supersededBy };
    });
  return decisions.sort((a, b) => a.number - b.number);
}

/** A file-name slug of a title: its words without the parenthesised references, at most ~60 characters. */
export function slugOf(title: string): string {
  const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  let bare = title;
  while (/\([^()]*\)/.test(bare)) bare = bare.replace(/\s*\([^()]*\)/g, ''); // innermost first: references nest
  const slug = words(bare) || words(title);
  if (slug.length <= 60) return slug;
  const cut = slug.slice(0, 61);
  return cut.slice(0, cut.lastIndexOf('-'));
}

const cell = (text: string) => text.replace(/\|/g, '\\|');
const link = (d: Decision | undefined, n: number) => (d ? `[${label(n)}](${d.file})` : label(n));

/** The index, docs/decisions/README.md, exactly as it must read. */
export function renderIndex(decisions: Decision[]): string {
  const byNumber = new Map(decisions.map((d) => [d.number, d]));
  const rows = decisions.map(
    (d) =>
      `| ${label(d.number)} | [${cell(d.title)}](${d.file}) | ${d.status} | ${d.supersededBy.map((n) => link(byNumber.get(n), n)).join(', ')} |`,
  );
  return [
    '# Decisions',
    '',
    '<!-- Written by scripts/decisions-index.ts from the D-nnn-*.md files beside it (npm run decisions:index): edit those, not this. -->',
    '',
    'Decisions the interface spec leaves open ("not shown"), and every departure from or refinement',
    'of `../shared/DESIGN.md`, with the reason: one file per decision, numbered in the order they were',
    'taken.',
    '',
    '**Adding a decision**: `npm run decisions:new -- "Area: title"` creates the next number\'s file,',
    '`D-nnn-<slug>.md`, opening with its heading `# D-nnn Area: title`; write the decision under the',
    'heading (or create the file by hand) and run `npm run decisions:index`, which rewrites this',
    'index (test/domain/decisions-index.test.ts fails until it is current). A decision that replaces',
    'earlier ones: make the first line of each replaced decision\'s body',
    '`**Superseded by D-nnn**: <what holds now>`; the status below is read from there. A number',
    `handed out and never assigned keeps a file titled \`${UNUSED_TITLE}\` saying why.`,
    '',
    '| Decision | Title | Status | Superseded by |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** Creates the next decision's file with its heading; answers its path. */
export function createDecision(title: string, dir = DECISIONS_DIR): string {
  const decisions = readDecisions(dir);
  const number = (decisions.at(-1)?.number ?? 0) + 1;
  const file = path.join(dir, `${label(number)}-${slugOf(title)}.md`);
  fs.writeFileSync(file, `# ${label(number)} ${title}\n\n`, { flag: 'wx' });
  return file;
}

export function writeIndex(dir = DECISIONS_DIR): void {
  fs.writeFileSync(path.join(dir, INDEX_FILE), renderIndex(readDecisions(dir)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'new') {
    const title = args.join(' ').trim();
    if (!title) {
      console.error('usage: npm run decisions:new -- "Area: title"');
      process.exit(64);
    }
    console.log(path.relative(process.cwd(), createDecision(title)));
  } else if (command !== undefined) {
    console.error(`unknown command "${command}": run without one to rewrite the index, or "new <title>"`);
    process.exit(64);
  }
  writeIndex();
}
