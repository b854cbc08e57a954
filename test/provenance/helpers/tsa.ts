/**
 * A local RFC 3161 timestamp authority for tests: `openssl ts -reply` behind a tiny HTTP
 * server on 127.0.0.1 (ephemeral port). Needs the openssl CLI.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { derToPem } from '../../../src/provenance/x509.js';
import { issueLeaf, type TestCa } from './pki.js';

const run = promisify(execFile);

export interface LocalTsa {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export async function startLocalTsa(ca: TestCa): Promise<LocalTsa> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pv-tsa-'));
  const now = Date.now();
  const tsa = issueLeaf(ca, 'PhotoVerify test TSA', 'tsa', {
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 365 * 86_400_000),
  });
  writeFileSync(path.join(dir, 'tsa.key.pem'), tsa.privateKey.export({ format: 'pem', type: 'pkcs8' }));
  writeFileSync(path.join(dir, 'tsa.cert.pem'), derToPem(tsa.der));
  writeFileSync(path.join(dir, 'chain.pem'), derToPem(ca.der));
  writeFileSync(path.join(dir, 'serial'), '01\n');
  writeFileSync(
    path.join(dir, 'tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'signer_cert = $dir/tsa.cert.pem',
      'certs = $dir/chain.pem',
      'signer_key = $dir/tsa.key.pem',
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256',
      'accuracy = secs:1',
      'ordering = no',
      'tsa_name = no',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  const state = { requests: 0, sequence: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = ++state.sequence;
      const query = path.join(dir, `q${id}.tsq`);
      const reply = path.join(dir, `r${id}.tsr`);
      writeFileSync(query, Buffer.concat(chunks));
      run('openssl', ['ts', '-reply', '-config', path.join(dir, 'tsa.cnf'), '-queryfile', query, '-out', reply])
        .then(() => {
          state.requests++;
          res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
          res.end(readFileSync(reply));
        })
        .catch((error: unknown) => {
          res.writeHead(500);
          res.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
