import { ConfigError, loadConfig } from './core/config.js';
import { startService } from './service.js';

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
  const service = await startService(config);
  const shutdown = (signal: string) => {
    service.deps.log.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (error) => {
        service.deps.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`photoverify failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
