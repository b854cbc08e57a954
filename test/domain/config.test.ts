import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/core/config.js';

describe('configuration', () => {
  it('defaults to port 8080, ./data and an EU region', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.DATA_DIR).toBe(`${process.cwd()}/data`);
    expect(config.PROCESSING_REGION).toMatch(/^eu-/);
    expect(config.PUBLIC_BASE_URL).toBe('http://localhost:8080');
  });

  it('names every bad variable in one error', () => {
    try {
      loadConfig({ PORT: 'eighty', PROCESSING_REGION: 'us-east-1', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of ['PORT', 'PROCESSING_REGION', 'DATABASE_URL', 'JWT_SECRET']) expect(message).toContain(name);
      expect(message).toContain('"us-east-1"');
    }
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', SMTP_URL: ' ' }).DATABASE_URL).toBeUndefined();
  });
});
