/**
 * Options of the `photoverify` commands as data, so that each command's `--help` (options,
 * defaults, environment variables, exit codes, an example) and its parsing come from one
 * declaration, and a mistyped option is answered with the closest valid one.
 */
import { parseArgs } from 'node:util';

export interface OptionSpec {
  name: string;
  short?: string;
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** The value's placeholder in the help: FILE, URL, SECONDS. */
  value?: string;
  description: string;
  /** Applied when the option is absent, and shown in the help. */
  default?: string;
  /** An environment variable read when the option is absent. */
  env?: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** What follows `photoverify NAME` in the synopsis. */
  synopsis: string;
  description?: string;
  positionals?: { name: string; description: string }[];
  options: OptionSpec[];
  exitCodes: [number, string][];
  examples: string[];
  /** Extra paragraphs after the options (e.g. environment variables). */
  notes?: string;
}

const HELP: OptionSpec = { name: 'help', short: 'h', type: 'boolean', description: 'show this help and exit' };

/** Levenshtein distance (insertions, deletions, substitutions), for "did you mean". */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate nearest to `input`, if it is near enough to be a typo (at most a third of its length, and 3 edits). */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  const limit = Math.min(3, Math.max(1, Math.ceil(input.length / 3)));
  return best && best.distance <= limit ? best.candidate : undefined;
}

function optionLabel(option: OptionSpec): string {
  const long = `--${option.name}${option.value ? ` ${option.value}` : ''}`;
  return option.short ? `-${option.short}, ${long}` : `    ${long}`;
}

/** The whole help of a command: synopsis, description, arguments, options with defaults, exit codes, examples. */
export function helpText(spec: CommandSpec): string {
  const options = [...spec.options, HELP];
  const width = Math.max(...options.map((o) => optionLabel(o).length), ...(spec.positionals ?? []).map((p) => p.name.length + 4)) + 2;
  const lines = [`Usage: photoverify ${spec.name} ${spec.synopsis}`, '', spec.summary];
  if (spec.description) lines.push('', spec.description);
  if (spec.positionals?.length) {
    lines.push('', 'Arguments:');
    for (const p of spec.positionals) lines.push(`  ${p.name.padEnd(width)}${p.description}`);
  }
  lines.push('', 'Options:');
  for (const option of options) {
    const extras = [
      option.default !== undefined ? `default: ${option.default}` : '',
      option.env ? `env: ${option.env}` : '',
      option.multiple ? 'repeatable' : '',
    ].filter(Boolean);
    lines.push(`  ${optionLabel(option).padEnd(width)}${option.description}${extras.length ? ` (${extras.join('; ')})` : ''}`);
  }
  if (spec.notes) lines.push('', spec.notes.trimEnd());
  lines.push('', 'Exit codes:');
  for (const [code, meaning] of spec.exitCodes) lines.push(`  ${String(code).padEnd(3)}${meaning}`);
  lines.push('', spec.examples.length > 1 ? 'Examples:' : 'Example:');
  for (const example of spec.examples) lines.push(`  ${example}`);
  return `${lines.join('\n')}\n`;
}

export type Parsed = { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };

/**
 * Parses `argv` for the command: `--help`/`-h` prints the help (stdout, exit 0); an unknown
 * option names the closest valid one; any usage error goes to stderr with a pointer to `--help`
 * (exit 2). Returns the values (defaults and environment applied) or the exit code.
 */
export function parseCommand(spec: CommandSpec, argv: string[]): Parsed | number {
  const options = [...spec.options, HELP];
  const fail = (message: string) => {
    process.stderr.write(`photoverify ${spec.name}: ${message}\nUsage: photoverify ${spec.name} ${spec.synopsis}\nRun "photoverify ${spec.name} --help" for the options, defaults and exit codes.\n`);
    return 2;
  };
  // Help wins over everything else on the line, even a mistake elsewhere.
  const end = argv.indexOf('--');
  const flags = end === -1 ? argv : argv.slice(0, end);
  if (flags.includes('--help') || flags.includes('-h')) {
    process.stdout.write(helpText(spec));
    return 0;
  }
  for (const arg of flags) {
    if (arg.startsWith('--') && arg.length > 2) {
      const name = arg.slice(2).split('=')[0]!;
      if (!options.some((o) => o.name === name)) {
        const suggestion = closest(name, options.map((o) => o.name));
        return fail(`unknown option --${name}${suggestion ? `; did you mean --${suggestion}?` : ''}`);
      }
    } else if (/^-[^-]/.test(arg) && !/^-\d/.test(arg)) {
      for (const letter of arg.slice(1)) {
        if (!options.some((o) => o.short === letter)) {
          const long = options.find((o) => o.name.startsWith(letter));
          return fail(`unknown option -${letter}${long ? `; did you mean --${long.name}?` : ''}`);
        }
        // A short option that takes a value consumes the rest of the word.
        if (options.find((o) => o.short === letter)?.type === 'string') break;
      }
    }
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: Boolean(spec.positionals?.length),
      strict: true,
      options: Object.fromEntries(options.map((o) => [o.name, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }])),
    });
  } catch (error) {
    return fail((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const values = { ...parsed.values } as Parsed['values'];
  for (const option of options) {
    if (values[option.name] !== undefined) continue;
    const fromEnv = option.env ? process.env[option.env]?.trim() : undefined;
    if (fromEnv) values[option.name] = fromEnv;
    else if (option.default !== undefined && option.type === 'string') values[option.name] = option.multiple ? [] : option.default;
    else if (option.type === 'boolean') values[option.name] = false;
    else if (option.multiple) values[option.name] = [];
  }
  return { values, positionals: parsed.positionals };
}
