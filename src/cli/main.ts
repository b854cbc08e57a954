/**
 * `photoverify <command>`: each command lives in its own module under ./commands, imported only
 * when that command runs. `--help` imports none of them (sharp, LibRaw and the C2PA wasm take
 * longer to load than the whole help should), so the one-line summaries live here.
 */
type CommandModule = { run(argv: string[]): Promise<number> };

const commands: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  analyze: {
    summary: 'Analyse a RAW + JPEG/HEIC pair and grade it (exit 0 = verified, 1 = not verified, 2 = error)',
    load: () => import('./commands/analyze.js'),
  },
  credentials: {
    summary: "Check a file's C2PA Content Credentials: verdict and evidence, trusted as the service does (C2PA_* variables, --data-dir DIR or DATA_DIR)",
    load: () => import('./commands/credentials.js'),
  },
  verify: {
    summary: 'Upload an image (and its RAW) to a PhotoVerify service, wait for the result (exit 0 = verified)',
    load: () => import('./commands/verify.js'),
  },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write('Usage: photoverify <command> [options]\n\nCommands:\n');
    for (const [command, { summary }] of Object.entries(commands)) process.stdout.write(`  ${command.padEnd(14)} ${summary}\n`);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`photoverify: unknown command "${name}". Run "photoverify --help" for the list.\n`);
    return 2;
  }
  return (await command.load()).run(rest);
}
