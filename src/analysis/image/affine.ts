/**
 * 2x3 affine maps between pixel grids (pixel-centre coordinates):
 *   u = m[0]*x + m[1]*y + m[2],  v = m[3]*x + m[4]*y + m[5].
 * Registration composes and rescales them between pyramid levels.
 */
export type Affine = [number, number, number, number, number, number];

export const identity: Affine = [1, 0, 0, 0, 1, 0];

/** (a ∘ b)(p) = a(b(p)). */
export function compose(a: Affine, b: Affine): Affine {
  return [
    a[0] * b[0] + a[1] * b[3],
    a[0] * b[1] + a[1] * b[4],
    a[0] * b[2] + a[1] * b[5] + a[2],
    a[3] * b[0] + a[4] * b[3],
    a[3] * b[1] + a[4] * b[4],
    a[3] * b[2] + a[4] * b[5] + a[5],
  ];
}

export function invert(m: Affine): Affine {
  const det = m[0] * m[4] - m[1] * m[3];
  const i0 = m[4] / det;
  const i1 = -m[1] / det;
  const i3 = -m[3] / det;
  const i4 = m[0] / det;
  return [i0, i1, -(i0 * m[2] + i1 * m[5]), i3, i4, -(i3 * m[2] + i4 * m[5])];
}

export function apply(m: Affine, x: number, y: number): [number, number] {
  return [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]];
}

/**
 * The map from a grid of size (w0, h0) to the same content resampled to (w1, h1), in
 * pixel-centre coordinates: x1 = (x0 + 0.5) * w1/w0 - 0.5.
 */
export function gridScale(w0: number, h0: number, w1: number, h1: number): Affine {
  const fx = w1 / w0;
  const fy = h1 / h0;
  return [fx, 0, 0.5 * fx - 0.5, 0, fy, 0.5 * fy - 0.5];
}

/** Similarity about a centre: p ↦ c + s·R(θ)·(p − c) + d. */
export function similarityAbout(cx: number, cy: number, scale: number, theta: number, dx: number, dy: number): Affine {
  const a = scale * Math.cos(theta);
  const b = scale * Math.sin(theta);
  return [a, -b, cx - a * cx + b * cy + dx, b, a, cy - b * cx - a * cy + dy];
}

/** Scale, rotation (degrees, counter-clockwise in image display) and mirror of the linear part. */
export function decompose(m: Affine): { scale: number; rotationDeg: number; flipped: boolean } {
  const det = m[0] * m[4] - m[1] * m[3];
  const flipped = det < 0;
  // Undo a horizontal mirror (x ↦ −x) before reading the angle.
  const a = flipped ? -m[0] : m[0];
  const b = m[3] * (flipped ? -1 : 1);
  const rotationDeg = ((Math.atan2(b, a) * 180) / Math.PI + 360) % 360;
  return { scale: Math.sqrt(Math.abs(det)), rotationDeg: rotationDeg > 180 ? rotationDeg - 360 : rotationDeg, flipped };
}
