/**
 * `photoverify <command>`: each command lives in its own module under ./commands, imported only
 * when that command runs. The help comes from the commands' specs (specs.ts, data only): sharp,
 * LibRaw and the C2PA wasm take longer to load than the whole help should.
 */
import { closest, helpText } from './args.js';
import { commandSpecs } from './specs.js';
import { packageVersion } from '../core/version.js';

type CommandModule = { run(argv: string[]): Promise<number> };

const loaders: Record<string, () => Promise<CommandModule>> = {
  analyze: () => import('./commands/analyze.js'),
  credentials: () => import('./commands/credentials.js'),
  verify: () => import('./commands/verify.js'),
  audit: () => import('./commands/audit.js'),
};

function overview(): string {
  const width = Math.max(...commandSpecs.map((c) => c.name.length)) + 2;
  return [
    `photoverify ${packageVersion}: photo authenticity verification from the command line`,
    '',
    'Usage: photoverify <command> [options]',
    '       photoverify <command> --help     options, defaults, exit codes and an example',
    '',
    'Commands:',
    ...commandSpecs.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Options:',
    '  -h, --help       show this help and exit',
    '  -V, --version    print the version and exit',
    '',
    'Exit codes:',
    '  0  success (see each command: e.g. "verified")',
    '  1  the command ran and the answer is no (e.g. not verified)',
    '  2  usage error, unreadable file, or a service error',
    '',
    'Examples:',
    ...commandSpecs.map((c) => `  ${c.examples[0]}`),
    '',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) {
    process.stderr.write(overview());
    return 2;
  }
  if (name === '--help' || name === '-h') {
    process.stdout.write(overview());
    return 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`${packageVersion}\n`);
    return 0;
  }
  if (name === 'help') {
    const topic = rest[0] ? commandSpecs.find((c) => c.name === rest[0]) : undefined;
    process.stdout.write(topic ? helpText(topic) : overview());
    return 0;
  }
  const load = Object.hasOwn(loaders, name) ? loaders[name] : undefined;
  if (!load) {
    const names = Object.keys(loaders);
    const suggestion = name.startsWith('-') ? closest(name.replace(/^-+/, ''), ['help', 'version']) : closest(name, names);
    const hint = suggestion ? `; did you mean "${name.startsWith('-') ? `--${suggestion}` : suggestion}"?` : '';
    process.stderr.write(`photoverify: unknown ${name.startsWith('-') ? 'option' : 'command'} "${name}"${hint}\nCommands: ${names.join(', ')}. Run "photoverify --help" for more.\n`);
    return 2;
  }
  return (await load()).run(rest);
}
