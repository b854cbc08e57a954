import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { boundAddress, describeComponents, localUrl, maskSecrets } from '../../src/startup-summary.js';
import { allocatorEnv, describeAllocator } from '../../src/core/allocator.js';
import { c2paReader, loadNativeReader } from '../../src/provenance/c2pa-reader.js';
import { freePort } from '../support/processes.js';

const repo = path.resolve(import.meta.dirname, '../..');

describe('the start-up log line', () => {
  it('masks passwords in connection strings, in the user part and in query parameters', () => {
    expect(maskSecrets('postgres://pv:hunter2@db.internal:5432/photoverify')).toBe('postgres://pv:***@db.internal:5432/photoverify');
    expect(maskSecrets('postgresql://pv@db/x?sslmode=require&sslpassword=hunter2')).toBe('postgresql://pv@db/x?sslmode=require&sslpassword=***');
    expect(maskSecrets('esdb://admin:changeit@es.internal:2113?tls=false')).toBe('esdb://admin:***@es.internal:2113?tls=false');
    expect(maskSecrets('smtps://mailer:p%40ss@smtp.example.eu:465')).toBe('smtps://mailer:***@smtp.example.eu:465');
    expect(maskSecrets('smtp://127.0.0.1:1025')).toBe('smtp://127.0.0.1:1025');
  });

  it('names the bound address as bound, and a URL to open for a wildcard bind', () => {
    expect(boundAddress({ address: '0.0.0.0', family: 'IPv4', port: 8080 })).toBe('0.0.0.0:8080');
    expect(localUrl({ address: '0.0.0.0', family: 'IPv4', port: 8080 })).toBe('http://localhost:8080');
    expect(boundAddress({ address: '::', family: 'IPv6', port: 8080 })).toBe('[::]:8080');
    expect(localUrl({ address: '192.0.2.7', family: 'IPv4', port: 9000 })).toBe('http://192.0.2.7:9000');
  });

  it('describes every configured real component, and the embedded ones when none is configured', () => {
    const real = describeComponents(
      loadConfig({
        DATA_DIR: '/srv/pv',
        DATABASE_URL: 'postgres://pv:db-secret@db:5432/pv',
        EVENTSTORE_URL: 'esdb://admin:es-secret@es:2113?tls=false',
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_NAMESPACE: 'prod',
        SMTP_URL: 'smtps://mailer:mail-secret@smtp.example.eu:465',
      }),
    );
    expect(real).toEqual({
      database: 'PostgreSQL postgres://pv:***@db:5432/pv',
      event_store: 'EventStoreDB esdb://admin:***@es:2113?tls=false',
      workflow_engine: 'Temporal temporal:7233 (namespace prod, task queue photoverify-verifications)',
      mail: 'SMTP smtps://mailer:***@smtp.example.eu:465',
      blob_store: 'files in /srv/pv/blobs',
      c2pa_reader: c2paReader().description,
    });
    const embedded = describeComponents(loadConfig({ DATA_DIR: '/srv/pv' }));
    expect(embedded.database).toBe('PGlite (embedded PostgreSQL) in /srv/pv/pglite');
    expect(embedded.workflow_engine).toMatch(/^in-process/);
    expect(embedded.mail).toContain('/srv/pv/outbox');
  });

  it('says which allocator settings are in force, and what is missing on glibc', () => {
    expect(describeAllocator({}, null)).toEqual({ text: 'not glibc (no tuning needed)', tuned: true });
    expect(describeAllocator({ ...allocatorEnv }, '2.36')).toEqual({ text: 'glibc 2.36, MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072', tuned: true });
    const missing = describeAllocator({ MALLOC_ARENA_MAX: '4' }, '2.36');
    expect(missing.tuned).toBe(false);
    expect(missing.text).toContain('without MALLOC_MMAP_THRESHOLD_');
    expect(missing.text).not.toContain('without MALLOC_ARENA_MAX');
  });

  it('npm start sets the allocator settings the service expects (each overridable)', () => {
    const start = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')).scripts.start as string;
    for (const [name, value] of Object.entries(allocatorEnv)) expect(start).toContain(`${name}=\${${name}:-${value}}`);
    expect(start).toMatch(/exec node dist\/src\/main\.js$/);
  });

  it('of the real service bound to 0.0.0.0 says 0.0.0.0, a localhost URL, and its mail server without the password', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-startlog-'));
    const child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: repo,
      env: {
        ...process.env,
        HOST: '0.0.0.0',
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        PASSWORD_HASH_COST: '10',
        DATABASE_URL: '',
        EVENTSTORE_URL: '',
        TEMPORAL_ADDRESS: '',
        // Nothing listens there: mail is sent by a workflow, never at start-up.
        SMTP_URL: 'smtp://mailer:not-in-the-log@127.0.0.1:9',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const deadline = Date.now() + 180_000;
      while (!output.includes('photoverify listening') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const line = output.split('\n').find((l) => l.includes('photoverify listening'));
      expect(line, output).toBeDefined();
      const entry = JSON.parse(line!);
      expect(entry.msg).toContain(`listening on 0.0.0.0:${port} (http://localhost:${port})`);
      expect(entry.msg).not.toContain('127.0.0.1:' + port);
      expect(entry.address).toBe(`0.0.0.0:${port}`);
      expect(entry.mail).toBe('SMTP smtp://mailer:***@127.0.0.1:9');
      expect(entry.database).toContain('PGlite');
      expect(entry.allocator).toMatch(/glibc/);
      expect(entry.workflow_engine).toContain('in-process');
      expect(entry.blob_store).toContain(path.join(dataDir, 'blobs'));
      // The reader the process chose: native c2pa-rs exactly when the addon has been built.
      expect(entry.c2pa_reader).toMatch('reader' in loadNativeReader() ? /^native c2pa-rs \d/ : /^c2pa-wasm .*; native reader not built/);
      expect(entry.msg).toContain(`c2pa reader: ${entry.c2pa_reader}`);
      expect(entry.msg).toContain('mail: SMTP smtp://mailer:***@127.0.0.1:9');
      expect(output).not.toContain('not-in-the-log');
    } finally {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
