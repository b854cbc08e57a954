/**
 * Recaptures derived from real photographs, for calibrating and testing recapture detection
 * (no real photo-of-a-screen or photo-of-a-print RAW exists among the fixtures). Each function
 * returns what a camera would record when pointed at the photograph shown on an LCD or printed
 * with an AM halftone: a physical model, not a pattern drawn onto the picture.
 */
import { resizeRgb } from '../../src/analysis/image/ops.js';
import type { RgbImage } from '../../src/analysis/types.js';

export interface ScreenShot {
  /** Display pixels across the displayed photograph. */
  displayWidth: number;
  /** Camera pixels per display pixel (below ~2 the grid aliases into moiré). */
  cameraPxPerDisplayPx: number;
  /** Tilt of the camera against the screen, degrees. */
  angleDeg: number;
}

/** An RGB-stripe LCD with a black matrix between sub-pixels and rows. */
export function photographScreen(photo: RgbImage, shot: ScreenShot): RgbImage {
  const displayHeight = Math.round((photo.height * shot.displayWidth) / photo.width);
  const display = resizeRgb(photo, shot.displayWidth, displayHeight);
  const k = shot.cameraPxPerDisplayPx;
  const width = Math.floor(shot.displayWidth * k * 0.92);
  const height = Math.floor(displayHeight * k * 0.92);
  const t = (shot.angleDeg * Math.PI) / 180;
  const cos = Math.cos(t);
  const sin = Math.sin(t);
  return integrate(width, height, (x, y, out) => {
    // Camera pixel → display coordinates, about the centre, tilted.
    const cx = x - width / 2;
    const cy = y - height / 2;
    const u = (cx * cos - cy * sin) / k;
    const v = (cx * sin + cy * cos) / k;
    const du = u + shot.displayWidth / 2;
    const dv = v + displayHeight / 2;
    const i = Math.floor(du);
    const j = Math.floor(dv);
    if (i < 0 || j < 0 || i >= shot.displayWidth || j >= displayHeight) return;
    const fv = dv - j;
    const sub = (du - i) * 3;
    const channel = Math.floor(sub);
    if (fv > 0.82 || sub - channel > 0.78) return; // black matrix
    out[channel]! += linear[display.data[(j * shot.displayWidth + i) * 3 + channel]!]! * 3;
  });
}

export interface PrintShot {
  /** Halftone cell period in camera pixels. */
  periodPx: number;
  /** Tilt of the camera against the print, degrees (added to the screen angles). */
  angleDeg: number;
}

/** A CMY AM halftone (screen angles 15°, 75°, 0°) on white paper. */
export function photographPrint(photo: RgbImage, shot: PrintShot): RgbImage {
  const { width, height } = photo;
  const screens = [15, 75, 0].map((a) => ((a + shot.angleDeg) * Math.PI) / 180);
  const cos = screens.map(Math.cos);
  const sin = screens.map(Math.sin);
  return integrate(width, height, (x, y, out) => {
    const p = (Math.min(height - 1, Math.max(0, Math.round(y))) * width + Math.min(width - 1, Math.max(0, Math.round(x)))) * 3;
    for (let c = 0; c < 3; c++) {
      const ink = 1 - linear[photo.data[p + c]!]!; // cyan absorbs red, magenta green, yellow blue
      const xs = (x * cos[c]! + y * sin[c]!) / shot.periodPx;
      const ys = (-x * sin[c]! + y * cos[c]!) / shot.periodPx;
      const dot = 0.5 + 0.25 * (Math.cos(2 * Math.PI * xs) + Math.cos(2 * Math.PI * ys));
      out[c]! += dot < ink ? 0.04 : 0.92;
    }
  });
}

/** Each camera pixel integrates a 4x4 grid of scene samples, then gets mild sensor noise. */
function integrate(width: number, height: number, scene: (x: number, y: number, out: number[]) => void): RgbImage {
  const data = new Uint8Array(width * height * 3);
  const n = 4;
  let seed = 12345;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed / 0x7fffffff - 0.5) * 0.02;
  };
  const acc = [0, 0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      acc[0] = acc[1] = acc[2] = 0;
      for (let sy = 0; sy < n; sy++) for (let sx = 0; sx < n; sx++) scene(x + (sx + 0.5) / n, y + (sy + 0.5) / n, acc);
      for (let c = 0; c < 3; c++) data[(y * width + x) * 3 + c] = encode(acc[c]! / (n * n) + noise());
    }
  }
  return { width, height, data };
}

/** Display/print light of each 8-bit level (a table: the same values as computing them per sample). */
const linear = Float64Array.from({ length: 256 }, (_, v) => Math.pow(v / 255, 2.2));
const encode = (v: number) => Math.round(255 * Math.pow(Math.min(1, Math.max(0, v)), 1 / 2.2));
