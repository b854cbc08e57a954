import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { allocatorEnv } from '../../src/core/allocator.js';
import { configDocumentation, loadConfig } from '../../src/core/config.js';

/**
 * docker-compose.yml cannot be started here (no Docker engine on the build machines), so its
 * structure is checked instead (issue 26, must-work 4): the topology the file and
 * docs/operations.md describe (two APIs behind one proxied port, two workers, PostgreSQL,
 * Temporal, Mailpit, an S3 server, EventStoreDB through EVENTSTORE_URL), every setting given to
 * the service is one src/core/config.ts knows and accepts, and the pieces point at each other
 * (hosts, ports, credentials, the shared keys volume).
 */
const repo = path.resolve(import.meta.dirname, '../..');
const compose = YAML.parse(fs.readFileSync(path.join(repo, 'docker-compose.yml'), 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;
/** Compose's `${VAR:-default}` as a shell without VAR set reads it. */
const interpolate = (value: unknown) => String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
const envOf = (name: string): Record<string, string> => Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, interpolate(v)]));
const instances = Object.keys(services).filter((name) => JSON.stringify(services[name].command ?? '').includes('dist/src/main.js'));
const byRole = (role: string) => instances.filter((name) => envOf(name).ROLE === role);
const hostPort = (url: string) => {
  const u = new URL(url.includes('://') ? url : `tcp://${url}`);
  return [u.hostname, u.port];
};

describe('docker-compose.yml', () => {
  it('runs two API instances and two workers of the service, and nothing else as the service', () => {
    expect(byRole('api')).toEqual(['api-1', 'api-2']);
    expect(byRole('worker')).toEqual(['worker-1', 'worker-2']);
    expect(instances.sort()).toEqual([...byRole('api'), ...byRole('worker')].sort());
  });

  it('gives every instance only settings the service knows, with values it accepts', () => {
    const known = new Set([...Object.keys(configDocumentation), ...Object.keys(allocatorEnv)]);
    for (const name of instances) {
      const env = envOf(name);
      expect(Object.keys(env).filter((key) => !known.has(key)), name).toEqual([]);
      // Both ways the file is started: events in PostgreSQL, and EventStoreDB through the profile.
      for (const eventstore of ['', 'esdb://eventstore:2113?tls=false']) {
        const config = loadConfig({ ...env, EVENTSTORE_URL: eventstore });
        expect(config.ROLE, name).toBe(env.ROLE);
      }
      // The allocator settings npm start gives (the command bypasses npm).
      expect(env).toMatchObject(allocatorEnv);
    }
  });

  it('shares one deployment between the instances: database, queue, bucket, keys, public address', () => {
    const shared = ['DATABASE_URL', 'EVENTSTORE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_TASK_QUEUE', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'SMTP_URL', 'JWT_SECRET', 'PUBLIC_BASE_URL', 'DATA_DIR'];
    const first = envOf(instances[0]!);
    for (const key of shared) expect(first[key], key).toBeDefined();
    for (const name of instances) {
      for (const key of shared) expect([name, key, envOf(name)[key]]).toEqual([name, key, first[key]]);
      // DATA_DIR (share-link, URL-signing and invitation keys) is one volume for all of them.
      expect(services[name].volumes).toContain(`pvshared:${first.DATA_DIR}`);
      // Behind the proxy: no instance publishes a port of its own.
      expect(services[name].ports, name).toBeUndefined();
    }
    // The public address is the proxy's one published port.
    expect(services.proxy.ports).toEqual([`${new URL(first.PUBLIC_BASE_URL!).port}:8080`]);
  });

  it('puts the APIs, and only they, behind the proxy, probed on their health route; workers probed on /ready', () => {
    const caddyfile: string = compose.configs[services.proxy.configs[0].source].content;
    const upstreams = /reverse_proxy\s+([^{]+)\{/.exec(caddyfile)![1]!.trim().split(/\s+/);
    expect(upstreams).toEqual(byRole('api').map((name) => `${name}:${envOf(name).PORT}`));
    expect(caddyfile).toContain('health_uri /v1/public/health');
    for (const name of byRole('api')) expect(services[name].healthcheck.test.join(' ')).toContain(`127.0.0.1:${envOf(name).PORT}/v1/public/health`);
    for (const name of byRole('worker')) expect(services[name].healthcheck.test.join(' ')).toContain(`127.0.0.1:${envOf(name).PORT}/ready`);
    expect(Object.keys(services.proxy.depends_on).sort()).toEqual(byRole('api'));
  });

  it('points the instances at the PostgreSQL, Temporal, Mailpit, S3 and EventStoreDB services it runs', () => {
    const env = envOf('api-1');
    expect(hostPort(env.DATABASE_URL!)).toEqual(['postgres', '5432']);
    expect(new URL(env.DATABASE_URL!).username).toBe(services.postgres.environment.POSTGRES_USER);
    expect(hostPort(env.TEMPORAL_ADDRESS!)).toEqual(['temporal', '7233']);
    expect(hostPort(env.SMTP_URL!)).toEqual(['mailpit', '1025']);
    // The S3 server listens where S3_ENDPOINT says, with the credentials the instances use, and the bucket is made for them.
    const s3Port = services.s3.command[services.s3.command.indexOf('--port') + 1];
    expect(hostPort(env.S3_ENDPOINT!)).toEqual(['s3', s3Port.replace(':', '')]);
    expect([services.s3.environment.ROOT_ACCESS_KEY_ID, services.s3.environment.ROOT_SECRET_ACCESS_KEY]).toEqual([env.S3_ACCESS_KEY_ID, env.S3_SECRET_ACCESS_KEY]);
    expect(services['s3-bucket'].entrypoint.join(' ')).toContain(`--bucket ${env.S3_BUCKET}`);
    expect(services['s3-bucket'].environment.AWS_ENDPOINT_URL).toBe(env.S3_ENDPOINT);
    // EventStoreDB is there under its profile, and the variable the instances read names it.
    expect(services.eventstore.profiles).toEqual(['eventstore']);
    expect(services['api-1'].environment.EVENTSTORE_URL).toBe('${EVENTSTORE_URL:-}');
    expect(fs.readFileSync(path.join(repo, 'docker-compose.yml'), 'utf8')).toContain("EVENTSTORE_URL='esdb://eventstore:2113?tls=false' docker compose --profile eventstore up");
  });

  it('names only services it defines in every depends_on', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const target of Object.keys(service.depends_on ?? {})) expect([name, target, Boolean(services[target])]).toEqual([name, target, true]);
    }
  });
});
