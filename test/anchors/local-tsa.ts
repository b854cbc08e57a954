import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A real RFC 3161 timestamp authority for tests: `openssl ts -reply` behind a tiny HTTP server
 * (POST application/timestamp-query), with a CA and a TSA certificate made by openssl in a temp
 * dir. `refuse` makes it answer HTTP 503 (an authority that is down) until set back.
 */
export interface LocalTsa {
  url: string;
  /** The TSA's CA certificate (PEM file), to check tokens with `openssl ts -verify`. */
  caFile: string;
  /** Requests it answered with a token. */
  granted: number;
  refuse: boolean;
  verify(token: Buffer, data: Buffer): Promise<string>;
  close(): Promise<void>;
}

export async function startLocalTsa(): Promise<LocalTsa> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-tsa-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '30', '-subj', '/CN=Test TSA CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  await openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', file('tsa.key'), '-out', file('tsa.csr'), '-subj', '/CN=Test TSA');
  fs.writeFileSync(file('tsa.ext'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n');
  await openssl('x509', '-req', '-in', file('tsa.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('tsa.pem'), '-days', '30', '-extfile', file('tsa.ext'));
  fs.writeFileSync(file('serial'), '01\n');
  fs.writeFileSync(
    file('tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'crypto_device = builtin',
      'signer_cert = $dir/tsa.pem',
      'certs = $dir/ca.pem',
      'signer_key = $dir/tsa.key',
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = no',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let sequence = 0;
  // openssl ts keeps its serial in one file: one reply at a time.
  let queue = Promise.resolve();
  const tsa: LocalTsa = {
    url: '',
    caFile: file('ca.pem'),
    granted: 0,
    refuse: false,
    async verify(token, data) {
      const tokenFile = file(`check-${++sequence}.tst`);
      const dataFile = file(`check-${sequence}.bin`);
      fs.writeFileSync(tokenFile, token);
      fs.writeFileSync(dataFile, data);
      const { stdout } = await openssl('ts', '-verify', '-token_in', '-in', tokenFile, '-data', dataFile, '-CAfile', file('ca.pem'), '-untrusted', file('tsa.pem'));
      return stdout;
    },
    close: () => new Promise((resolve) => server.close(() => resolve(fs.rmSync(dir, { recursive: true, force: true })))),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (tsa.refuse || req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
        res.writeHead(tsa.refuse ? 503 : 400).end();
        return;
      }
      queue = queue.then(async () => {
        const n = ++sequence;
        fs.writeFileSync(file(`q${n}.tsq`), Buffer.concat(chunks));
        try {
          await openssl('ts', '-reply', '-config', file('tsa.cnf'), '-queryfile', file(`q${n}.tsq`), '-out', file(`r${n}.tsr`));
          tsa.granted += 1;
          res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(fs.readFileSync(file(`r${n}.tsr`)));
        } catch (error) {
          res.writeHead(500).end(String(error));
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tsa.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  return tsa;
}
