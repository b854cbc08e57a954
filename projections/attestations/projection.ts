import { attestationEvents } from '../../src/features/attestations/events.js';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { type Projector, unapplied } from '../../src/core/es/projector.js';

/**
 * Capture challenges (found by nonce hash when an attestation arrives) and attestations
 * (for listing a device's captures). Single use is enforced on the capture stream, not here.
 */
export const attestationsProjector: Projector = {
  name: 'capture_attestations',
  version: 1,
  tables: ['capture_attestations', 'capture_challenges'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists capture_challenges (
        capture_id uuid primary key,
        nonce_sha256 text not null unique,
        account_id uuid,
        issued_at timestamptz not null,
        expires_at timestamptz not null,
        attested_at timestamptz,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`
      create table if not exists capture_attestations (
        attestation_id uuid primary key,
        account_id uuid,
        device_fingerprint_id text not null,
        camera_fingerprint_id text,
        image_sha256 text not null,
        raw_sha256 text,
        sequence_number bigint,
        security_score double precision not null,
        integrity_score double precision not null,
        captured_at timestamptz not null,
        attested_at timestamptz not null,
        expires_at timestamptz not null,
        redeemed_by_verification_id uuid,
        redeemed_at timestamptz,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create index if not exists capture_attestations_device on capture_attestations (device_fingerprint_id, attested_at)');
  },
  async apply(trx, stored) {
    const event = parseEvent(attestationEvents, stored);
    if (!event) return;
    const position = stored.position.toString();
    switch (event.type) {
      case 'CaptureChallengeIssued': {
        const d = event.data;
        await trx('capture_challenges')
          .insert({
            capture_id: d.capture_id,
            nonce_sha256: d.nonce_sha256,
            account_id: d.account_id,
            issued_at: d.issued_at,
            expires_at: d.expires_at,
            last_position: position,
          })
          .onConflict('capture_id')
          .ignore();
        return;
      }
      case 'CaptureAttested': {
        const d = event.data;
        await unapplied(trx, 'capture_challenges', { capture_id: d.attestation_id }, position)
          .update({ attested_at: d.attested_at, last_position: position });
        await trx('capture_attestations')
          .insert({
            attestation_id: d.attestation_id,
            account_id: d.account_id,
            device_fingerprint_id: d.device_fingerprint_id,
            camera_fingerprint_id: d.camera_fingerprint_id,
            image_sha256: d.image_sha256,
            raw_sha256: d.raw_sha256,
            sequence_number: d.sequence_number,
            security_score: d.security_score,
            integrity_score: d.integrity_score,
            captured_at: d.captured_at,
            attested_at: d.attested_at,
            expires_at: d.expires_at,
            last_position: position,
          })
          .onConflict('attestation_id')
          .ignore();
        return;
      }
      case 'AttestationRedeemed':
        await unapplied(trx, 'capture_attestations', { attestation_id: event.data.attestation_id }, position)
          .update({ redeemed_by_verification_id: event.data.verification_id, redeemed_at: event.data.redeemed_at, last_position: position });
        return;
      default:
        assertNever(event);
    }
  },
};
