/** `photoverify <command>`: each command lives in its own module under ./commands. */
type CommandModule = { run(argv: string[]): Promise<number>; summary: string };

const commands: Record<string, () => Promise<CommandModule>> = {
  analyze: () => import('./commands/analyze.js'),
  credentials: () => import('./commands/credentials.js'),
  verify: () => import('./commands/verify.js'),
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write('Usage: photoverify <command> [options]\n\nCommands:\n');
    for (const [command, load] of Object.entries(commands)) {
      const mod = await load();
      process.stdout.write(`  ${command.padEnd(14)} ${mod.summary}\n`);
    }
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`photoverify: unknown command "${name}". Run "photoverify --help" for the list.\n`);
    return 2;
  }
  return (await load()).run(rest);
}
