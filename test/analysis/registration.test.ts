import sharp, { type Sharp } from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decompose } from '../../src/analysis/image/affine.js';
import { downscalePlane, lumaOf } from '../../src/analysis/image/ops.js';
import { registerImages } from '../../src/analysis/registration.js';
import type { Plane } from '../../src/analysis/types.js';
import { camera30d, fixtures } from './fixtures.js';

const F = `${fixtures}/${camera30d.jpeg}`;
async function plane(s: Sharp): Promise<Plane> {
  const { data, info } = await s.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return downscalePlane(lumaOf({ width: info.width, height: info.height, data: new Uint8Array(data) }), 1024);
}

describe('registerImages on exports derived from the real 30D JPEG', () => {
  let ref: Plane;
  beforeAll(async () => {
    ref = await plane(sharp(F));
  });
  it.each([
    ['resize', () => sharp(F).resize(864), 1024 / 864, 0, false],
    ['crop', () => sharp(F).extract({ left: 300, top: 200, width: 900, height: 600 }), 1024 / 1728, 0, false],
    ['rotate 7° (white canvas)', () => sharp(F).rotate(7, { background: '#fff' }), null, -7, false],
    ['rotate 90°', () => sharp(F).rotate(90), 1, -90, false],
    ['mirror', () => sharp(F).flop(), 1, 0, true],
    ['vertical flip', () => sharp(F).flip(), 1, 180, true],
  ] as const)('%s', async (_n, make, scale, angle, flipped) => {
    const r = registerImages(ref, await plane(make()));
    const d = decompose(r.transform);
    expect(r.score).toBeGreaterThan(0.95);
    if (scale !== null) expect(d.scale).toBeCloseTo(scale, 2);
    expect(Math.abs(((d.rotationDeg - angle + 540) % 360) - 180)).toBeLessThan(0.3);
    expect(d.flipped).toBe(flipped);
  });
  it('another scene does not register', async () => {
    const r = registerImages(ref, await plane(sharp(`${fixtures}/images/mei_nikon-d70.jpg`)));
    expect(r.score).toBeLessThan(0.7);
  });
});
