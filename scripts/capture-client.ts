/**
 * Example capture client (docs/capture-attestation.md): gets a challenge, hashes the files,
 * signs the attestation with a device key and submits it; prints the attestation_id.
 *
 *   npx tsx scripts/capture-client.ts --url http://localhost:8080 --image FILE [--raw FILE]
 *     --api-key KEY [--key DEVICE_KEY.jwk] [--sequence N] [--gps LAT,LON]
 *
 * --key names a private JWK file: loaded when it exists, otherwise a new P-256 key is
 * generated and saved there (0600), so the same "device" keeps its fingerprint across runs.
 * Without --key the key is ephemeral. --api-key (required: the capture routes need credentials)
 * binds the capture to that account; the upload must use the same account.
 *
 * A desktop has no platform attestation, so the integrity signals are reported honestly as
 * "unavailable" with a software key; a phone app would use App Attest / Play Integrity and a
 * key in the secure enclave / StrongBox and report those.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import exifr from 'exifr';
import { CompactSign, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    image: { type: 'string' },
    raw: { type: 'string' },
    key: { type: 'string' },
    'api-key': { type: 'string' },
    sequence: { type: 'string' },
    gps: { type: 'string' },
  },
});

function usage(message: string): never {
  console.error(`${message}\nusage: npx tsx scripts/capture-client.ts --url URL --image FILE --api-key KEY [--raw FILE] [--key DEVICE_KEY.jwk] [--sequence N] [--gps LAT,LON]`);
  process.exit(2);
}

/** Hashing streams the file, so large RAWs are not held in memory. */
async function sha256File(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function deviceKey(file: string | undefined): Promise<{ privateKey: CryptoKey; publicJwk: JWK }> {
  if (file && fs.existsSync(file)) {
    const jwk = JSON.parse(fs.readFileSync(file, 'utf8')) as JWK;
    const { d: _private, ...publicJwk } = jwk;
    return { privateKey: (await importJWK(jwk, 'ES256')) as CryptoKey, publicJwk };
  }
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  if (file) fs.writeFileSync(file, JSON.stringify(await exportJWK(privateKey)), { mode: 0o600 });
  return { privateKey, publicJwk: await exportJWK(publicKey) };
}

/** Camera identifiers from the image's own EXIF, when it has them. */
async function cameraOf(file: string): Promise<{ make: string; model: string; serial?: string } | null> {
  const exif = await exifr.parse(file, { pick: ['Make', 'Model', 'SerialNumber', 'BodySerialNumber'] }).catch(() => undefined);
  if (!exif?.Make || !exif?.Model) return null;
  const serial = exif.BodySerialNumber ?? exif.SerialNumber;
  return { make: String(exif.Make).trim(), model: String(exif.Model).trim(), ...(serial ? { serial: String(serial).trim() } : {}) };
}

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  headers['x-api-key'] = args['api-key']!;
  const response = await fetch(new URL(path, args.url), { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) {
    console.error(`${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
    process.exit(1);
  }
  return json;
}

if (!args.url) usage('--url is required');
if (!args.image) usage('--image is required');
if (!args['api-key']) usage('--api-key is required');
const gps = args.gps?.split(',').map(Number);
if (gps && (gps.length !== 2 || gps.some((n) => !Number.isFinite(n)))) usage('--gps must be LAT,LON');

const { privateKey, publicJwk } = await deviceKey(args.key);
const challenge = await post('/capture/challenge', undefined);
const payload = {
  v: 1,
  nonce: challenge.nonce,
  image_sha256: await sha256File(args.image),
  raw_sha256: args.raw ? await sha256File(args.raw) : null,
  captured_at: new Date().toISOString(),
  device: { model: `${process.platform}-${process.arch}`, os: `node ${process.version}`, app_version: 'capture-client/1' },
  camera: await cameraOf(args.image),
  sequence_number: args.sequence === undefined ? null : Number(args.sequence),
  gps: gps ? { latitude: gps[0], longitude: gps[1] } : null,
  integrity: { app_integrity: 'unavailable', hardware_backed_key: false, jailbreak_indicators: [] },
};
const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
  .setProtectedHeader({ alg: 'ES256', typ: 'pv-capture+jws', jwk: publicJwk })
  .sign(privateKey);
const attestation = await post('/capture/attestation', { attestation: jws });
console.error(`security_score ${attestation.security_score}, device ${attestation.device_fingerprint_id}, upload before ${attestation.expires_at}`);
console.log(attestation.attestation_id);
