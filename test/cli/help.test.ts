import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../src/cli/args.js';
import { ProgressBar } from '../../src/cli/progress-bar.js';
import { commandSpecs } from '../../src/cli/specs.js';
import { stageBar } from '../../src/cli/verify/progress.js';
import { requires } from '../support/requires.js';

const repo = path.resolve(import.meta.dirname, '../..');
const bin = path.join(repo, 'bin/photoverify.mjs');
const version = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')).version;
const photoverify = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, PHOTOVERIFY_URL: '', PHOTOVERIFY_API_KEY: '' } });

describe('photoverify explains itself', () => {
  it('--help lists every command, the global options, exit codes and examples', () => {
    for (const flag of ['--help', '-h']) {
      const run = photoverify(flag);
      expect(run.status).toBe(0);
      for (const spec of commandSpecs) expect(run.stdout).toMatch(new RegExp(`^  ${spec.name}\\s+\\S`, 'm'));
      expect(run.stdout).toContain('--version');
      expect(run.stdout).toContain('Exit codes:');
      expect(run.stdout).toMatch(/Examples:\n  photoverify analyze/);
    }
  });

  it('no command at all is a usage error that shows the overview', () => {
    const run = photoverify();
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Commands:');
    expect(run.stdout).toBe('');
  });

  it('--version prints the version of package.json', () => {
    for (const flag of ['--version', '-V']) {
      const run = photoverify(flag);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });

  for (const spec of commandSpecs) {
    it(`${spec.name} --help and -h show every option with its default, the exit codes and an example`, () => {
      for (const flag of ['--help', '-h']) {
        const run = photoverify(spec.name, flag);
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout.startsWith(`Usage: photoverify ${spec.name} `)).toBe(true);
        for (const option of spec.options) {
          const line = run.stdout.split('\n').find((l) => l.includes(`--${option.name}`) && !l.startsWith('Usage'));
          expect(line, `--${option.name}`).toBeDefined();
          if (option.default !== undefined) expect(line).toContain(`default: ${option.default}`);
          if (option.env) expect(line).toContain(`env: ${option.env}`);
        }
        expect(run.stdout).toContain('-h, --help');
        const codes = run.stdout.split('Exit codes:\n')[1]!.split('\n\n')[0]!;
        for (const [code] of spec.exitCodes) expect(codes).toMatch(new RegExp(`^  ${code}\\s`, 'm'));
        expect(run.stdout).toMatch(new RegExp(`Examples?:\\n  photoverify ${spec.name} `));
      }
    });
  }

  it('--help wins over a mistake elsewhere on the line', () => {
    const run = photoverify('verify', '--bogus', '--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: photoverify verify');
  });

  it('an unknown option names the closest valid one and exits 2', () => {
    const cases: [string[], string][] = [
      [['verify', '--jsn'], '--json'],
      [['verify', '--imgae', 'x.jpg'], '--image'],
      [['analyze', '--raww=x'], '--raw'],
      [['credentials', 'photo.jpg', '--trust-anchor', 'ca.pem'], '--trust-anchors'],
      [['credentials', 'photo.jpg', '--datadir', 'd'], '--data-dir'],
    ];
    for (const [args, suggestion] of cases) {
      const run = photoverify(...args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`did you mean ${suggestion}?`);
      expect(run.stderr).toContain(`photoverify ${args[0]} --help`);
      expect(run.stdout).toBe('');
    }
    const far = photoverify('analyze', '--completely-different');
    expect(far.status).toBe(2);
    expect(far.stderr).toContain('unknown option --completely-different');
    expect(far.stderr).not.toContain('did you mean');
  });

  it('an unknown command names the closest one', () => {
    const run = photoverify('anlyze', '--raw', 'x');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('did you mean "analyze"?');
    expect(photoverify('--verison').stderr).toContain('did you mean "--version"?');
    expect(photoverify('help', 'verify').stdout).toContain('Usage: photoverify verify');
  });

  it('edit distance and the nearest candidate', () => {
    expect(editDistance('json', 'json')).toBe(0);
    expect(editDistance('jsn', 'json')).toBe(1);
    expect(editDistance('imgae', 'image')).toBe(2);
    expect(closest('timout', ['timeout', 'interval', 'image'])).toBe('timeout');
    expect(closest('x', ['json', 'raw'])).toBeUndefined();
  });
});

/** A stream that records what is written, as a terminal or as a pipe. */
function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, write: (chunk: string) => (chunks.push(chunk), true), text: () => chunks.join('') } as unknown as NodeJS.WriteStream & { text(): string };
}

describe('progress of long commands', () => {
  it('is a live bar redrawn in place on a terminal', () => {
    const out = sink(true);
    const bar = new ProgressBar(out);
    bar.update('decoding RAW', 0.1);
    bar.update('decoding RAW', 0.5);
    bar.update('comparing', 1);
    bar.done();
    const text = out.text();
    expect(text.split('\r').length - 1).toBe(3);
    expect(text).toContain(' 50% decoding RAW');
    expect(text).toMatch(/\[█{24}\] 100% comparing/);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('is plain lines, one per phase, when piped', () => {
    const out = sink(false);
    const bar = new ProgressBar(out);
    bar.update('decoding RAW', 0.1);
    bar.update('decoding RAW', 0.5);
    bar.update('comparing', 1);
    bar.done();
    expect(out.text()).toBe('[ 10%] decoding RAW\n[100%] comparing\n');
  });

  it('verify shows the stages reached', () => {
    expect(stageBar('queued')).toBe('[███░░]');
    expect(stageBar('completed')).toBe('[█████]');
    expect(stageBar('failed')).toBe('[█████]');
  });

  const pair = path.resolve(repo, '../shared/fixtures/pairs/canon_eos_30d_cr2');
  const pty = requires(
    { server: 'util-linux `script` (runs a command on a pseudo-terminal)', available: spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0, how: 'apt-get install bsdutils' },
    'the analyze progress bar on a real terminal',
  );
  pty.it('analyze draws the bar on a real terminal and prints lines when piped', { timeout: 240_000 }, () => {
    const args = ['analyze', '--raw', path.join(pair, 'IMG_5952.CR2'), '--image', path.join(pair, 'IMG_5952.camera-preview.jpg')];
    const piped = photoverify(...args);
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain('\r');
    expect(piped.stderr).toMatch(/^\[\s*\d+%\] \S/m);
    // util-linux `script` runs the command on a pseudo-terminal: stderr is a TTY there.
    const command = [process.execPath, bin, ...args].map((a) => `'${a}'`).join(' ');
    const tty = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 200_000 });
    expect(tty.status, tty.stdout).toBe(0);
    expect(tty.stdout).toMatch(/\r\[[█░]{24}\]\s+\d+% /);
    expect(tty.stdout).toContain('Grade: VERIFIED');
  });
});
