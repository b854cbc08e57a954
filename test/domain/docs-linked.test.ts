import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A newcomer finds every document by following links from the README: each file under docs/ is
 * reached from README.md through markdown links (a path named in prose or in code is not a link),
 * and no link of a reached document points to a file that is not there.
 */
const repo = path.resolve(import.meta.dirname, '../..');
const docs = path.join(repo, 'docs');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** The local targets of a markdown file's links (inline and reference-style), outside code. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...prose.matchAll(/\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map((m) => (m[1] ?? m[2])!),
    ...[...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!),
  ];
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#')).map((t) => decodeURIComponent(t.replace(/[#?].*$/, '')));
}

/** A link to a folder opens its README.md, as the repository host shows it. */
const opened = (file: string) => (fs.existsSync(file) && fs.statSync(file).isDirectory() ? path.join(file, 'README.md') : file);

function reachedFromReadme(): { reached: Set<string>; broken: string[] } {
  const start = path.join(repo, 'README.md');
  const reached = new Set([start]);
  const broken: string[] = [];
  for (const queue = [start]; queue.length > 0; ) {
    const file = queue.shift()!;
    for (const target of linkTargets(fs.readFileSync(file, 'utf8'))) {
      const linked = opened(path.resolve(path.dirname(file), target));
      if (!fs.existsSync(linked)) broken.push(`${path.relative(repo, file)} → ${target}`);
      else if (!reached.has(linked)) {
        reached.add(linked);
        if (linked.endsWith('.md')) queue.push(linked);
      }
    }
  }
  return { reached, broken };
}

describe('docs/', () => {
  const { reached, broken } = reachedFromReadme();

  it('links every file under docs/ from the README, directly or through documents it links', () => {
    const files = filesUnder(docs);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => !reached.has(f)).map((f) => path.relative(repo, f))).toEqual([]);
  });

  it('has no link, in a document the README reaches, to a file that is not there', () => {
    expect(broken).toEqual([]);
  });

  it('names only paths of the checkout that exist (README and docs/*.md; a decision keeps the paths of its day)', () => {
    // Made by `npm run build:native`, never committed.
    const built = new Set(['native/c2pa/photoverify-c2pa.node']);
    const pages = [path.join(repo, 'README.md'), ...fs.readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => path.join(docs, f))];
    const missing = pages.flatMap((page) =>
      [...fs.readFileSync(page, 'utf8').matchAll(/(?<![\w./-])(?:src|test|projections|workflows|scripts|bench|native)\/[\w./-]*[\w/]/g)]
        .map((m) => m[0])
        .filter((p) => !built.has(p) && !fs.existsSync(path.join(repo, p)))
        .map((p) => `${path.relative(repo, page)}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('counts a link only where markdown makes one: not a path in prose or in code', () => {
    const text = [
      'See docs/a.md and `[b](b.md)`, [c](c.md "title"), [d](<d e.md>), [e](https://x.example/e.md), [f](#f), [g](g.md#part).',
      '```md',
      '[h](h.md)',
      '```',
      '[i]: i.md',
    ].join('\n');
    expect(linkTargets(text)).toEqual(['c.md', 'd e.md', 'g.md', 'i.md']);
  });
});
