/**
 * Checks a RAW container before any decoding: where the sensor data is declared, whether the
 * file actually holds it (truncated copies and metadata-only stubs decode to garbage in LibRaw
 * rather than failing), and which compression variant it uses. Pure byte inspection.
 */
import type { RawFormat } from '../types.js';
import { readDngLevels } from './dng-levels.js';
import { imageExtent, readTiff, Tag, tagNumber, tagText, type ImageDataExtent, type TiffFile } from './tiff.js';

/**
 * Fewest bytes per sensor pixel a file with real sensor data can hold. Lossless RAW is ~1-2 B/px,
 * lossy DNG and VC-5 ~0.2-0.4 B/px (the 6D DNG fixture 0.21, the GoPro GPRs 0.34); the
 * metadata-only stubs hold under 0.001 B/px. 0.05 sits far from both.
 */
export const minSensorBytesPerPixel = 0.05;

export type ContainerProblem =
  | { kind: 'truncated'; message: string; details: Record<string, unknown> }
  | { kind: 'metadata_only'; message: string; details: Record<string, unknown> };

export interface UnsupportedVariant {
  variant: string;
  details: Record<string, unknown>;
}

export interface ContainerReport {
  /** Facts worth keeping as evidence (go to DecodedRaw.container). */
  facts: Record<string, unknown>;
  problem?: ContainerProblem;
  unsupported?: UnsupportedVariant;
}

/** DNG/TIFF Compression values that name a codec, for messages and evidence. */
const compressionNames: Record<number, string> = {
  1: 'uncompressed',
  6: 'old-style JPEG',
  7: 'lossless JPEG',
  8: 'Deflate',
  9: 'VC-5 (GoPro CineForm RAW)',
  32767: 'Sony ARW compressed',
  32769: 'Nikon packed',
  32770: 'Samsung SRW compressed',
  32773: 'PackBits',
  32867: 'Kodak KDC compressed',
  34713: 'Nikon NEF compressed',
  34892: 'lossy JPEG (DNG 1.4)',
  52546: 'JPEG XL (DNG 1.7)',
  65000: 'Kodak DCR compressed',
  65535: 'Pentax PEF compressed',
};

/** Compressions this LibRaw build is known not to read: reported as a named variant, not a crash. */
const undecodableCompressions = new Set([9]);

export function compressionName(code: number | undefined): string | undefined {
  return code === undefined ? undefined : (compressionNames[code] ?? `compression ${code}`);
}

export function inspectContainer(bytes: Uint8Array, format: RawFormat | 'KDC'): ContainerReport {
  switch (format) {
    case 'RAF':
      return inspectRaf(bytes);
    case 'CR3':
      return inspectCr3(bytes);
    // Not TIFF containers (CIFF, QuickTake, Minolta's blocks) or a TIFF header over a maker's own
    // block (Phase One): no container check here, LibRaw's open and unpack decide.
    case 'CRW':
    case 'QTK':
    case 'MRW':
    case 'IIQ':
      return { facts: { fileSize: bytes.length } };
    // TIFF containers: their image directories say where the sensor data is and how far it runs.
    case 'CR2':
    case 'ARW':
    case 'NEF':
    case 'DNG':
    case 'ORF':
    case 'RW2':
    case 'PEF':
    case 'SRW':
    case 'KDC':
    case '3FR':
    case 'MOS':
    case 'MEF':
    case 'ERF':
      return inspectTiffBased(bytes, format);
  }
}

function truncated(size: number, what: string, endsAt: number, extra: Record<string, unknown> = {}): ContainerProblem {
  return {
    kind: 'truncated',
    message: `the file is truncated after ${size} bytes: ${what} is declared to run to byte ${endsAt}`,
    details: { fileSize: size, declaredEnd: endsAt, ...extra },
  };
}

/** Sensor size assumed when the container does not state it (CR2's IFD3, RAF): any real one is larger. */
const assumedMinSensorPixels = 1_000_000;

function metadataOnly(bytesFound: number, width: number, height: number, extra: Record<string, unknown> = {}): ContainerProblem {
  const known = width > 0 && height > 0;
  const expected = Math.ceil((known ? width * height : assumedMinSensorPixels) * minSensorBytesPerPixel);
  return {
    kind: 'metadata_only',
    message:
      `the file holds camera metadata but no sensor data: ${bytesFound} bytes are stored for ` +
      `${known ? `a ${width}x${height}` : 'the'} sensor image (at least ${expected} expected)`,
    details: { sensorBytes: bytesFound, sensorWidth: width, sensorHeight: height, minBytesPerPixel: minSensorBytesPerPixel, ...extra },
  };
}

/** The IFD holding the mosaic: CR2 keeps it in IFD3; others mark it NewSubfileType 0. */
function sensorExtent(tiff: TiffFile, format: RawFormat | 'KDC'): ImageDataExtent | null {
  if (format === 'CR2') {
    const ifd3 = tiff.ifds.find((ifd) => ifd.path === 'IFD3');
    return ifd3 ? imageExtent(ifd3) : null;
  }
  const candidates = tiff.ifds
    .map((ifd) => ({ ifd, extent: imageExtent(ifd) }))
    .filter((c): c is { ifd: typeof c.ifd; extent: ImageDataExtent } => c.extent !== null)
    .filter(({ ifd }) => (tagNumber(ifd, Tag.NewSubfileType) ?? 0) === 0);
  const rawLike = candidates.filter(({ ifd }) => {
    const photometric = tagNumber(ifd, Tag.PhotometricInterpretation);
    return photometric === 32803 || photometric === 34892 || photometric === undefined;
  });
  const pool = rawLike.length > 0 ? rawLike : candidates;
  pool.sort((a, b) => b.extent.width * b.extent.height - a.extent.width * a.extent.height || b.extent.declaredBytes - a.extent.declaredBytes);
  return pool[0]?.extent ?? null;
}

function inspectTiffBased(bytes: Uint8Array, format: RawFormat | 'KDC'): ContainerReport {
  const tiff = readTiff(bytes);
  const facts: Record<string, unknown> = { fileSize: bytes.length };
  if (!tiff || tiff.ifds.length === 0) {
    return {
      facts,
      problem: truncated(bytes.length, 'the first image directory', tiff?.danglingEnds[0] ?? 8),
    };
  }
  const software = tagText(tiff, Tag.Software);
  if (software) facts.software = software;
  const dngIfd = tiff.ifds.find((ifd) => ifd.entries.has(Tag.DNGVersion));
  if (dngIfd) facts.dngVersion = dngIfd.entries.get(Tag.DNGVersion)!.values.slice(0, 4).join('.');

  if (format === 'RW2') return inspectRw2(bytes, tiff, facts);

  const extent = sensorExtent(tiff, format);
  if (!extent) {
    if (tiff.danglingEnds.length > 0) {
      return { facts, problem: truncated(bytes.length, 'an image directory', Math.max(...tiff.danglingEnds)) };
    }
    return {
      facts,
      problem: {
        kind: 'metadata_only',
        message: 'the file holds camera metadata but no sensor data: no image directory declares the sensor image',
        details: { directories: tiff.ifds.map((ifd) => ifd.path) },
      },
    };
  }
  const photometric = tagNumber(extent.ifd, Tag.PhotometricInterpretation);
  Object.assign(facts, {
    sensorDirectory: extent.ifd.path,
    sensorCompression: extent.compression,
    sensorCompressionName: compressionName(extent.compression),
    sensorBytes: extent.declaredBytes,
  });
  if (photometric !== undefined) {
    facts.photometric = photometric === 32803 ? 'CFA' : photometric === 34892 ? 'LinearRaw' : photometric;
  }
  if (extent.width > 0 && extent.height > 0) Object.assign(facts, { storedWidth: extent.width, storedHeight: extent.height });
  if (dngIfd) {
    const levels = readDngLevels(bytes, tiff, extent.ifd);
    if (levels) facts.dngLevels = levels;
  }
  if (extent.endsAt > bytes.length) {
    return { facts, problem: truncated(bytes.length, `the sensor image (${extent.ifd.path})`, extent.endsAt) };
  }
  const pixels = extent.width > 0 && extent.height > 0 ? extent.width * extent.height : assumedMinSensorPixels;
  if (!extent.partial && extent.declaredBytes < pixels * minSensorBytesPerPixel) {
    return { facts, problem: metadataOnly(extent.declaredBytes, extent.width, extent.height, { directory: extent.ifd.path }) };
  }
  if (extent.compression !== undefined && undecodableCompressions.has(extent.compression)) {
    return {
      facts,
      unsupported: {
        variant: compressionName(extent.compression)!,
        details: {
          compression: extent.compression,
          reason: 'the container is a valid DNG but this sensor-data codec cannot be decoded by LibRaw',
          make: tagText(tiff, Tag.Make),
          model: tagText(tiff, Tag.Model),
        },
      },
    };
  }
  return { facts };
}

function inspectRw2(bytes: Uint8Array, tiff: TiffFile, facts: Record<string, unknown>): ContainerReport {
  const ifd0 = tiff.ifds[0]!;
  const width = tagNumber(ifd0, 2) ?? 0; // Panasonic SensorWidth
  const height = tagNumber(ifd0, 3) ?? 0;
  const offset = tagNumber(ifd0, Tag.PanasonicRawDataOffset) ?? tagNumber(ifd0, Tag.StripOffsets);
  if (offset === undefined) return { facts, problem: metadataOnly(0, width, height) };
  if (offset >= bytes.length) return { facts, problem: truncated(bytes.length, 'the sensor data', offset) };
  const available = bytes.length - offset;
  if (width > 0 && height > 0 && available < width * height * minSensorBytesPerPixel) {
    return { facts, problem: metadataOnly(available, width, height) };
  }
  return { facts };
}

function inspectRaf(bytes: Uint8Array): ContainerReport {
  const facts: Record<string, unknown> = { fileSize: bytes.length };
  if (bytes.length < 108) return { facts, problem: truncated(bytes.length, 'the RAF header', 108) };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cfaOffset = view.getUint32(100);
  const cfaLength = view.getUint32(104);
  facts.sensorBytes = cfaLength;
  if (cfaOffset + cfaLength > bytes.length) return { facts, problem: truncated(bytes.length, 'the CFA block', cfaOffset + cfaLength) };
  if (cfaLength < assumedMinSensorPixels * minSensorBytesPerPixel) return { facts, problem: metadataOnly(cfaLength, 0, 0) };
  return { facts };
}

function inspectCr3(bytes: Uint8Array): ContainerReport {
  const facts: Record<string, unknown> = { fileSize: bytes.length };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes: { type: string; offset: number; size: number }[] = [];
  let offset = 0;
  while (offset + 8 <= bytes.length) {
    let size = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (size === 1 && offset + 16 <= bytes.length) size = Number(view.getBigUint64(offset + 8));
    if (size === 0) size = bytes.length - offset;
    if (size < 8) break;
    boxes.push({ type, offset, size });
    offset += size;
  }
  facts.boxes = boxes.map((b) => b.type);
  const last = boxes.at(-1);
  if (last && last.offset + last.size > bytes.length) {
    return { facts, problem: truncated(bytes.length, `the '${last.type}' box`, last.offset + last.size) };
  }
  const mdat = boxes.find((b) => b.type === 'mdat');
  if (!mdat) {
    return {
      facts,
      problem: {
        kind: 'metadata_only',
        message: "the file holds camera metadata but no sensor data: it has no media data ('mdat') box",
        details: { boxes: facts.boxes },
      },
    };
  }
  facts.sensorBytes = mdat.size;
  return { facts };
}
