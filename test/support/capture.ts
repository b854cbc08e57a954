import { CompactSign, exportJWK, generateKeyPair, type JWK } from 'jose';

/** A capture device: an ES256 key pair, as a phone app would hold in its keystore. */
export interface Device {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newDevice(): Promise<Device> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: await exportJWK(publicKey) };
}

/** `embedded` is the key put in the header; by default the signing device's own. */
export async function signAttestation(device: Device, payload: unknown, header: Record<string, unknown> = {}, embedded: JWK = device.publicJwk) {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', typ: 'pv-capture+jws', jwk: embedded, ...header })
    .sign(device.privateKey);
}
