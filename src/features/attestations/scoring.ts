import crypto from 'node:crypto';
import type { CaptureIntegrity, CapturePayload } from './format.js';

/**
 * Scores derived from what the capturing app reports (docs/capture-attestation.md, "Scores").
 * The signals are claims made by the app under the device key: a compromised device can lie
 * about them, so the scores grade the reported environment, never prove it.
 */

const APP_INTEGRITY_FACTOR: Record<CaptureIntegrity['app_integrity'], number> = {
  verified: 1,
  unavailable: 0.8,
  unverified: 0.6,
  failed: 0.2,
};

/** Clock tolerance between the device and the server when checking the capture time. */
export const CAPTURE_TIME_TOLERANCE_MS = 60_000;

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** Reported indicators, trimmed, de-duplicated and sorted so equal reports compare equal. */
export function jailbreakIndicators(integrity: CaptureIntegrity): string[] {
  return [...new Set(integrity.jailbreak_indicators.map((i) => i.trim()))].sort();
}

/** Product of independent penalties: any single severe signal pulls the score down on its own. */
export function integrityScore(integrity: CaptureIntegrity): number {
  const indicators = jailbreakIndicators(integrity).length;
  const jailbreak = indicators === 0 ? 1 : 0.3 * 0.8 ** (Math.min(indicators, 5) - 1);
  return round3(
    APP_INTEGRITY_FACTOR[integrity.app_integrity] *
      jailbreak *
      (integrity.emulator ? 0.2 : 1) *
      (integrity.debugger_attached ? 0.5 : 1) *
      (integrity.mock_location ? 0.7 : 1),
  );
}

/** The nonce proves the signature is fresh; a capture time outside the challenge window weakens the claim that the photo is. */
export function captureTimeConsistent(capturedAt: Date, issuedAt: Date, attestedAt: Date): boolean {
  const t = capturedAt.getTime();
  return t >= issuedAt.getTime() - CAPTURE_TIME_TOLERANCE_MS && t <= attestedAt.getTime() + CAPTURE_TIME_TOLERANCE_MS;
}

export function securityScore(integrity: CaptureIntegrity, timeConsistent: boolean): number {
  return round3(integrityScore(integrity) * (integrity.hardware_backed_key ? 1 : 0.7) * (timeConsistent ? 1 : 0.8));
}

/**
 * Stable id of the camera (unit when a serial is given, else model and module), independent
 * of letter case and surrounding spaces; null when the app names no camera.
 */
export function cameraFingerprintId(camera: CapturePayload['camera']): string | null {
  if (!camera) return null;
  const parts = [camera.make, camera.model, camera.serial ?? '', camera.module ?? ''].map((p) => p.trim().toLowerCase());
  return crypto.createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}
