import { ConfigError, loadConfig } from './core/config.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee the configuration table in README.md.\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  // Signals are taken from the start: the server answers health before start-up ends (resuming
  // work waits for the read models), and a signal then must not kill the process mid-start.
  // One that arrives before start-up ends is acted on when it does.
  let stopOnStart: NodeJS.Signals | undefined;
  let shutdown = (signal: NodeJS.Signals) => void (stopOnStart ??= signal);
  process.on('SIGTERM', (signal) => shutdown(signal));
  process.on('SIGINT', (signal) => shutdown(signal));

  // Loaded once the configuration is known to be good: a bad variable is reported at once.
  const { startService } = await import('./service.js');
  let service;
  try {
    service = await startService(config);
  } catch (error) {
    // Refused for its place in the deployment (a second in-process workflow engine on one database): said plainly, not as a crash.
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee docs/operations.md, "Roles".\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const log = service.deps.log;

  // A terminal's Ctrl-C reaches every process of the group, and `npm start` forwards the signal
  // it got as well: the service can see SIGINT twice (with a once-only handler, the second one
  // killed it mid-drain). Repeats are logged and ignored; the drain is bounded by
  // SHUTDOWN_GRACE_MS and the workflow engine's own grace; SIGKILL still ends it at once.
  let shuttingDown = false;
  shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      log.info({ signal }, 'already shutting down: still draining');
      return;
    }
    shuttingDown = true;
    const requests = service.inFlight();
    log.info({ signal, requests }, `shutting down: no new connections, draining ${requests} requests`);
    service.stop().then(
      () => process.exit(0),
      (error) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  if (stopOnStart) shutdown(stopOnStart);
}

main().catch((error) => {
  process.stderr.write(`photoverify failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
