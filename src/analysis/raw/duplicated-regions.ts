/**
 * Duplicated regions in a CFA mosaic: a block of sensor values that recurs, sample for sample,
 * somewhere else in the frame. Real sensor data cannot do that: every sample carries its own
 * shot and read noise, so 64 textured samples repeating exactly has probability ~0 on every
 * camera, whatever its encoding. A clone stamp or a pasted tile done on the mosaic does it.
 *
 * One green plane is searched (the densest one; a clone aligned to the 2x2 quad moves all four
 * planes alike). Blocks of 8x8 plane samples (16x16 pixels) are hashed at every position with a
 * rolling hash; blocks on a 4-sample grid are indexed, every position is looked up, and a hit is
 * verified sample by sample. Flat or clipped blocks (fewer than 8 distinct values, or any
 * sample at saturation) never count: sky clipped to one value repeats legitimately.
 */

const block = 8;
const grid = 4;
const minDistinct = 8;
const P = 0x01000193;
const Q = 0x9e3779b1 | 0;

export interface DuplicatedRegions {
  plane: number;
  /** Grid blocks indexed (textured or not). */
  indexed: number;
  /** Verified textured blocks found again at another position, in total. */
  repeatedBlocks: number;
  /** The displacement (in pixels) shared by most repeated blocks, and how many share it. */
  strongest: { dx: number; dy: number; blocks: number } | null;
}

interface Table {
  keys: Int32Array;
  values: Int32Array;
  mask: number;
}

function tableFor(n: number): Table {
  let size = 1;
  while (size < n * 2) size <<= 1;
  return { keys: new Int32Array(size), values: new Int32Array(size).fill(-1), mask: size - 1 };
}

function slot(t: Table, key: number): number {
  let i = Math.imul(key, 0x2c1b3c6d) & t.mask;
  while (t.values[i] !== -1 && t.keys[i] !== key) i = (i + 1) & t.mask;
  return i;
}

export function findDuplicatedRegions(
  m: { cfa: Uint16Array; width: number; height: number },
  plane: number,
  saturation: number,
): DuplicatedRegions {
  const pw = m.width >> 1;
  const ph = m.height >> 1;
  const empty: DuplicatedRegions = { plane, indexed: 0, repeatedBlocks: 0, strongest: null };
  if (pw < block * 2 || ph < block * 2) return empty;
  const ox = plane & 1;
  const oy = plane >> 1;
  const v = new Uint16Array(pw * ph);
  for (let y = 0; y < ph; y++) {
    const row = (2 * y + oy) * m.width + ox;
    for (let x = 0; x < pw; x++) v[y * pw + x] = m.cfa[row + 2 * x]!;
  }
  const hw = pw - block + 1;
  const hh = ph - block + 1;
  // Row hashes of `block` consecutive samples, then block hashes over `block` rows.
  let pPow = 1;
  let qPow = 1;
  for (let k = 1; k < block; k++) {
    pPow = Math.imul(pPow, P);
    qPow = Math.imul(qPow, Q);
  }
  const rowHash = new Int32Array(ph * hw);
  for (let y = 0; y < ph; y++) {
    let h = 0;
    const base = y * pw;
    for (let k = 0; k < block; k++) h = (Math.imul(h, P) + v[base + k]!) | 0;
    rowHash[y * hw] = h;
    for (let x = 1; x < hw; x++) {
      h = (Math.imul((h - Math.imul(v[base + x - 1]!, pPow)) | 0, P) + v[base + x + block - 1]!) | 0;
      rowHash[y * hw + x] = h;
    }
  }
  const hashes = new Int32Array(hh * hw);
  const column = new Int32Array(hw);
  for (let x = 0; x < hw; x++) {
    let h = 0;
    for (let k = 0; k < block; k++) h = (Math.imul(h, Q) + rowHash[k * hw + x]!) | 0;
    column[x] = h;
  }
  hashes.set(column, 0);
  for (let y = 1; y < hh; y++) {
    for (let x = 0; x < hw; x++) {
      const h = (Math.imul((column[x]! - Math.imul(rowHash[(y - 1) * hw + x]!, qPow)) | 0, Q) + rowHash[(y + block - 1) * hw + x]!) | 0;
      column[x] = h;
      hashes[y * hw + x] = h;
    }
  }

  const textured = new Map<number, boolean>();
  const isTextured = (at: number): boolean => {
    let known = textured.get(at);
    if (known !== undefined) return known;
    const seen = new Set<number>();
    known = true;
    for (let y = 0; y < block && known; y++) {
      for (let x = 0; x < block; x++) {
        const s = v[at + y * pw + x]!;
        if (s >= saturation) {
          known = false;
          break;
        }
        seen.add(s);
      }
    }
    known = known && seen.size >= minDistinct;
    textured.set(at, known);
    return known;
  };
  const equal = (a: number, b: number): boolean => {
    for (let y = 0; y < block; y++) {
      for (let x = 0; x < block; x++) if (v[a + y * pw + x] !== v[b + y * pw + x]) return false;
    }
    return true;
  };

  const votes = new Map<number, number>();
  let repeatedBlocks = 0;
  const vote = (a: number, b: number): void => {
    const ax = a % pw;
    const ay = (a - ax) / pw;
    const bx = b % pw;
    const by = (b - bx) / pw;
    if (Math.abs(ax - bx) < block && Math.abs(ay - by) < block) return; // overlapping: not a copy elsewhere
    if (!isTextured(a) || !equal(a, b)) return;
    repeatedBlocks++;
    const key = (bx - ax + 32768) * 65536 + (by - ay + 32768);
    votes.set(key, (votes.get(key) ?? 0) + 1);
  };

  const table = tableFor(Math.ceil(hh / grid) * Math.ceil(hw / grid));
  let indexed = 0;
  for (let y = 0; y < hh; y += grid) {
    for (let x = 0; x < hw; x += grid) {
      const h = hashes[y * hw + x]!;
      const i = slot(table, h);
      if (table.values[i] === -1) {
        table.keys[i] = h;
        table.values[i] = y * pw + x;
      }
      indexed++;
    }
  }
  for (let y = 0; y < hh; y++) {
    for (let x = 0; x < hw; x++) {
      const i = slot(table, hashes[y * hw + x]!);
      const found = table.values[i]!;
      const here = y * pw + x;
      if (found !== -1 && found !== here) vote(found, here);
    }
  }
  let strongest: DuplicatedRegions['strongest'] = null;
  for (const [key, blocks] of votes) {
    if (!strongest || blocks > strongest.blocks) {
      strongest = { dx: 2 * (Math.floor(key / 65536) - 32768), dy: 2 * ((key % 65536) - 32768), blocks };
    }
  }
  return { plane, indexed, repeatedBlocks, strongest };
}
