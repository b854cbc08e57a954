/**
 * JPEG structure: the one check the service (at upload) and the CLI (through the pair pipeline)
 * both run. It walks the marker segments from SOI through the frame and scan headers and the
 * entropy-coded data (byte stuffing, restart markers, progressive scans) to the end-of-image
 * marker that closes the image, the way a decoder reads the file.
 *
 * - complete: an EOI closes the image; whatever follows it is trailing data (padding written by
 *   cameras and phones, Multi-Picture Format secondary images, appended trailers). Decoders
 *   ignore it; it is accepted and its length reported, never judged.
 * - truncated: the bytes end before that EOI.
 * - damaged: what a decoder refuses before the end (an unknown marker, a segment length below 2,
 *   a scan before any frame header, malformed frame/scan headers, a second SOI, an EOI before
 *   any image data).
 *
 * Only the end-of-image marker that the marker walk reaches counts: an EXIF thumbnail's EOI
 * inside APP1 is skipped with its segment. The walk is incremental (`push` chunks, then
 * `finish`): one pass, constant memory (a frame or scan header is at most 773 bytes), time
 * linear in the bytes up to the EOI, so a staged 100 MB upload is streamed, not loaded, and a
 * hostile file (random bytes, a sea of 0xFF fill bytes) ends in `damaged` or `truncated`.
 *
 * It is a structural check, not a decode: a file cut inside its scan whose last bytes happen
 * to be FF D9 reads as complete (the Huffman data is not counted); libjpeg only warns about
 * such a file as well (sharp with `failOn: 'truncated'` decodes it, the missing part grey).
 */
import { FileError } from '../../core/errors.js';

export type JpegStructure =
  | {
      ok: true;
      /** Offset just past the FFD9 that closes the image. */
      imageEnd: number;
      /** Bytes after that end-of-image marker. */
      trailingBytes: number;
      scans: number;
    }
  | { ok: false; problem: 'truncated' | 'damaged'; reason: string; offset: number; size: number };

const enum State {
  Soi0,
  Soi1,
  /** Between segments or inside entropy-coded data: looking for the next 0xFF. */
  Seek,
  /** After 0xFF: the marker code (or a stuffed 0x00, a fill 0xFF, a restart marker). */
  Code,
  Length0,
  Length1,
  /** Inside a segment's payload. */
  Skip,
}

/** SOF markers: C0-CF except DHT (C4), JPG (C8) and DAC (CC); F7 is JPEG-LS (SOF55). */
const isFrameHeader = (code: number) => (code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc) || code === 0xf7;
const SOS = 0xda;
const hex = (code: number) => `0xFF${code.toString(16).toUpperCase().padStart(2, '0')}`;

export class JpegStructureScanner {
  private state = State.Soi0;
  /** Absolute offset of the next byte `push` receives. */
  private offset = 0;
  private code = 0;
  private markerAt = 0;
  private length = 0;
  private skip = 0;
  /** Payload of a frame or scan header, validated once complete. */
  private header: number[] | null = null;
  private frames = 0;
  private scans = 0;
  private jpegLs = false;
  private outcome: { ok: true; imageEnd: number } | { ok: false; reason: string; offset: number } | null = null;

  /** Feeds the next bytes; true once the outcome is known (the rest of the file need not be read). */
  push(chunk: Uint8Array): boolean {
    const n = chunk.length;
    let i = 0;
    while (i < n && !this.outcome) {
      switch (this.state) {
        case State.Soi0:
        case State.Soi1: {
          const expected = this.state === State.Soi0 ? 0xff : 0xd8;
          if (chunk[i] !== expected) return this.fail('it does not start with a start-of-image marker', this.offset + i);
          this.state = this.state === State.Soi0 ? State.Soi1 : State.Seek;
          i++;
          break;
        }
        case State.Seek: {
          const at = chunk.indexOf(0xff, i);
          if (at < 0) {
            i = n;
          } else {
            this.markerAt = this.offset + at;
            this.state = State.Code;
            i = at + 1;
          }
          break;
        }
        case State.Code: {
          let code = chunk[i++]!;
          if (code === 0xff) {
            // Fill bytes: the marker follows the last of them.
            while (i < n && chunk[i] === 0xff) i++;
            this.markerAt = this.offset + i - 1;
            if (i === n) break;
            code = chunk[i++]!;
          }
          if (code === 0x00 || code === 0x01 || (code >= 0xd0 && code <= 0xd7) || (this.jpegLs && code < 0x80)) {
            // Stuffed byte, TEM or restart marker (or JPEG-LS bit stuffing): still inside the data.
            this.state = State.Seek;
          } else if (code === 0xd9) {
            if (this.scans === 0) return this.fail('it ends (end-of-image marker) before any image data', this.markerAt);
            this.outcome = { ok: true, imageEnd: this.offset + i };
          } else if (code === 0xd8) {
            return this.fail('a second start-of-image marker appears before the image ends', this.markerAt);
          } else if (code < 0xc0) {
            return this.fail(`an unknown marker ${hex(code)} appears at byte ${this.markerAt}`, this.markerAt);
          } else {
            this.code = code;
            this.state = State.Length0;
          }
          break;
        }
        case State.Length0:
          this.length = chunk[i++]! << 8;
          this.state = State.Length1;
          break;
        case State.Length1: {
          this.length |= chunk[i++]!;
          if (this.length < 2) return this.fail(`the ${hex(this.code)} segment has an invalid length (${this.length})`, this.markerAt);
          const frame = isFrameHeader(this.code);
          if (this.code === SOS && this.frames === 0) return this.fail('a scan starts before any frame header', this.markerAt);
          this.header = frame || this.code === SOS ? [] : null;
          this.skip = this.length - 2;
          if (this.skip === 0) {
            if (this.header && !this.endSegment()) return true;
            this.state = State.Seek;
          } else {
            this.state = State.Skip;
          }
          break;
        }
        case State.Skip: {
          const take = Math.min(this.skip, n - i);
          // Frame and scan headers are read (at most 773 bytes); other payloads are skipped.
          if (this.header && this.header.length < 1024) for (let k = 0; k < take && this.header.length < 1024; k++) this.header.push(chunk[i + k]!);
          i += take;
          this.skip -= take;
          if (this.skip === 0) {
            if (this.header && !this.endSegment()) return true;
            this.state = State.Seek;
          }
          break;
        }
      }
    }
    this.offset += n;
    return this.outcome !== null;
  }

  /** The outcome once every byte (or enough of them) was pushed; `size` is the whole file's. */
  finish(size = this.offset): JpegStructure {
    const outcome = this.outcome;
    if (outcome?.ok) return { ok: true, imageEnd: outcome.imageEnd, trailingBytes: size - outcome.imageEnd, scans: this.scans };
    if (outcome) return { ok: false, problem: 'damaged', reason: outcome.reason, offset: outcome.offset, size };
    if (this.state === State.Soi0 || this.state === State.Soi1) return { ok: false, problem: 'damaged', reason: 'it does not start with a start-of-image marker', offset: 0, size };
    const where = this.state === State.Skip || this.state === State.Length0 || this.state === State.Length1 ? `inside the ${hex(this.code)} segment` : this.scans > 0 ? 'inside the image data' : 'before any image data';
    return { ok: false, problem: 'truncated', reason: `the file ends after ${size} bytes, ${where}, without an end-of-image marker`, offset: size, size };
  }

  private fail(reason: string, offset: number): true {
    this.outcome = { ok: false, reason, offset };
    return true;
  }

  /** A frame or scan header is complete: check it as a decoder would before reading data. */
  private endSegment(): boolean {
    const h = this.header!;
    this.header = null;
    const at = this.markerAt;
    if (this.code === SOS) {
      const components = h[0] ?? 0;
      if (components < 1 || components > 4 || this.length !== 6 + 2 * components) {
        this.fail(`the scan header at byte ${at} is malformed (${components} components in ${this.length} bytes)`, at);
        return false;
      }
      this.scans++;
      return true;
    }
    const precision = h[0] ?? 0;
    const width = ((h[3] ?? 0) << 8) | (h[4] ?? 0);
    const components = h[5] ?? 0;
    if (precision < 2 || precision > 16 || width === 0 || components < 1 || this.length !== 8 + 3 * components) {
      this.fail(`the frame header at byte ${at} is malformed (precision ${precision}, width ${width}, ${components} components in ${this.length} bytes)`, at);
      return false;
    }
    this.frames++;
    if (this.code === 0xf7) this.jpegLs = true;
    return true;
  }
}

/** The structure of a JPEG held in memory (the CLI, the analysis pipeline). */
export function inspectJpeg(bytes: Uint8Array): JpegStructure {
  const scanner = new JpegStructureScanner();
  scanner.push(bytes);
  return scanner.finish(bytes.length);
}

/**
 * The structure of a JPEG read from a stream of `size` bytes (a staged upload): stops reading
 * at the end-of-image marker (or the first fault); trailing bytes are counted from `size`.
 */
export async function inspectJpegStream(chunks: AsyncIterable<Uint8Array>, size: number): Promise<JpegStructure> {
  const scanner = new JpegStructureScanner();
  for await (const chunk of chunks) if (scanner.push(chunk)) break; // leaving the loop closes the stream
  return scanner.finish(size);
}

/** The 400 for a JPEG that is not complete: one wording for the API and the CLI. */
export function jpegStructureError(structure: Extract<JpegStructure, { ok: false }>): FileError {
  const truncated = structure.problem === 'truncated';
  return new FileError('CORRUPT_FILE', `The JPEG is ${truncated ? 'truncated' : 'damaged'}: ${structure.reason}.`, {
    suggestion: truncated ? 'The upload or copy was cut short; send the complete file.' : 'Send the original, complete JPEG file.',
    details: { problem: structure.problem, offset: structure.offset, size: structure.size },
  });
}

/** Throws the CORRUPT_FILE above unless the JPEG is complete; returns its trailing byte count. */
export function checkJpegStructure(bytes: Uint8Array): number {
  const structure = inspectJpeg(bytes);
  if (!structure.ok) throw jpegStructureError(structure);
  return structure.trailingBytes;
}
