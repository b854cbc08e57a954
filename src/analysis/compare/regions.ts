/**
 * Localising differences: a per-block anomaly map is cleaned (a block counts only when most of
 * its 3x3 neighbourhood agrees, so isolated edge blocks from sub-pixel misalignment drop out),
 * then grouped into connected regions reported as boxes in full-resolution image pixels.
 */

export interface BlockGrid {
  cols: number;
  rows: number;
  /** Block size in working pixels. */
  size: number;
}

export interface Region {
  /** Box in full-resolution image pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Region area as a fraction of the covered image area. */
  area_fraction: number;
  /** Mean of the block statistic inside the region. */
  mean_score: number;
}

export function findRegions(
  anomalous: Uint8Array,
  scores: Float32Array,
  grid: BlockGrid,
  validBlocks: number,
  toImageScale: number,
  maxRegions = 5,
): Region[] {
  const { cols, rows } = grid;
  const cleaned = new Uint8Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (!anomalous[r * cols + c]) continue;
      let n = 0;
      for (let dr = -1; dr <= 1; dr++)
        for (let dc = -1; dc <= 1; dc++) {
          const rr = r + dr;
          const cc = c + dc;
          if (rr >= 0 && cc >= 0 && rr < rows && cc < cols && anomalous[rr * cols + cc]) n++;
        }
      if (n >= 4) cleaned[r * cols + c] = 1;
    }
  }
  const label = new Int32Array(cols * rows).fill(-1);
  const regions: (Region & { blocks: number })[] = [];
  for (let start = 0; start < cleaned.length; start++) {
    if (!cleaned[start] || label[start] !== -1) continue;
    const stack = [start];
    label[start] = regions.length;
    let minC = Infinity, minR = Infinity, maxC = -Infinity, maxR = -Infinity, count = 0, sum = 0;
    while (stack.length) {
      const i = stack.pop()!;
      const c = i % cols;
      const r = (i - c) / cols;
      minC = Math.min(minC, c); maxC = Math.max(maxC, c); minR = Math.min(minR, r); maxR = Math.max(maxR, r);
      count++;
      sum += scores[i]!;
      for (const [dc, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
        const cc = c + dc;
        const rr = r + dr;
        const j = rr * cols + cc;
        if (cc >= 0 && rr >= 0 && cc < cols && rr < rows && cleaned[j] && label[j] === -1) {
          label[j] = regions.length;
          stack.push(j);
        }
      }
    }
    const s = grid.size * toImageScale;
    regions.push({
      x: Math.round(minC * s),
      y: Math.round(minR * s),
      width: Math.round((maxC - minC + 1) * s),
      height: Math.round((maxR - minR + 1) * s),
      area_fraction: count / Math.max(1, validBlocks),
      mean_score: sum / count,
      blocks: count,
    });
  }
  return regions
    .sort((a, b) => b.blocks - a.blocks)
    .slice(0, maxRegions)
    .map(({ blocks: _blocks, ...r }) => r);
}
