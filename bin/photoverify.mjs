#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm install` through `prepare`, or `npm run build`).
const entry = new URL('../dist/src/cli/main.js', import.meta.url);
let cli;
try {
  cli = await import(entry.href);
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(entry.pathname)) {
    process.stderr.write('photoverify: the compiled CLI is missing (dist/). Run "npm run build" in the package directory.\n');
    process.exit(2);
  }
  throw error;
}
process.exitCode = await cli.main(process.argv.slice(2));
