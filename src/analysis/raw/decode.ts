/**
 * RAW bytes -> DecodedRaw. Order matters: the container is checked first (LibRaw decodes
 * truncated and metadata-only files to garbage instead of failing), known-undecodable codecs
 * become a named variant, and only then does LibRaw run, in the bounded worker pool.
 */
import type LibRaw from 'libraw-wasm';
import { FileError } from '../../core/errors.js';
import type { DecodedRaw, RawFormat } from '../types.js';
import { compressionName, inspectContainer, minSensorBytesPerPixel, type ContainerProblem } from './container.js';
import { withDngEncoding } from './dng-levels.js';
import { decodeCpuBudgetMs, DecodeBudgetExceededError, DecoderCrashError, DecodeStalledError, rawDecoderPool, type DecodeLimits, type RawDecoderPool } from './decoder-pool.js';
import { describeFile, detectRawFormat, supportedRawFormats, unsupportedRawError } from './format-detect.js';
import { cameraMetadata, orientationFromFlip, type LibRawMeta } from './metadata.js';

export type RawDecodeOutcome =
  | { kind: 'decoded'; raw: DecodedRaw }
  | { kind: 'unsupported_variant'; format: RawFormat; variant: string; details: Record<string, unknown> };

export interface DecodeRawOptions {
  /** The watchdog's limits (decoder-pool.ts); default: the CPU budget sized by the file's bytes. */
  limits?: Partial<DecodeLimits>;
  /** Defaults to the process-wide pool (see configureRawDecoders / shutdownRawDecoders). */
  pool?: RawDecoderPool;
}

/** DecodedRaw before the product format is attached: also used for non-product files (KDC) in calibration. */
export type SensorData = Omit<DecodedRaw, 'format'>;

type SensorOutcome =
  | { kind: 'decoded'; sensor: SensorData }
  | { kind: 'unsupported_variant'; variant: string; details: Record<string, unknown> };

export async function decodeRaw(bytes: Uint8Array, options: DecodeRawOptions = {}): Promise<RawDecodeOutcome> {
  if (bytes.length === 0) {
    throw new FileError('CORRUPT_FILE', 'The file is empty (0 bytes), not a camera RAW.', {
      suggestion: 'Upload the original RAW file from the camera.',
    });
  }
  const format = detectRawFormat(bytes);
  if (!format) {
    const unsupported = unsupportedRawError(bytes);
    if (unsupported) throw unsupported;
    const kind = describeFile(bytes);
    const message =
      kind === 'not a recognised image file'
        ? 'The file is not a camera RAW: its bytes match no known image or RAW format.'
        : `This file is ${kind}, not a camera RAW (supported: ${supportedRawFormats}).`;
    throw new FileError('UNSUPPORTED_FORMAT', message, {
      suggestion: 'Upload the RAW file exactly as the camera wrote it; the file name extension is ignored.',
      details: { detected: kind },
    });
  }
  const outcome = await decodeSensorData(bytes, format, options);
  return outcome.kind === 'decoded'
    ? { kind: 'decoded', raw: { format, ...outcome.sensor } }
    : { kind: 'unsupported_variant', format, variant: outcome.variant, details: outcome.details };
}

function containerError(format: string, problem: ContainerProblem): FileError {
  const truncatedFile = problem.kind === 'truncated';
  return new FileError(truncatedFile ? 'CORRUPT_FILE' : 'UNPROCESSABLE_FILE', `This ${format} file cannot be analysed: ${problem.message}.`, {
    suggestion: truncatedFile
      ? 'The upload or copy was cut short; upload the complete file.'
      : 'Upload the original RAW file from the camera, not a metadata sample or sidecar.',
    details: { format, problem: problem.kind, ...problem.details },
  });
}

interface LibRawOutput {
  meta: LibRawMeta;
  /** Full raw frame including masked borders (CFA files). */
  frame?: { data: Uint16Array; rawWidth: number; rawHeight: number; top: number; left: number; width: number; height: number };
  /** Demosaiced linear camera RGB (LinearRaw DNG). */
  linear?: { data: Uint16Array; width: number; height: number };
  unpackError?: string;
}

/**
 * LinearRaw output as stored: no white balance, no colour conversion, no gamma, no brightening,
 * no rotation, so it stays comparable with CFA data.
 */
const linearSettings = {
  outputBps: 16,
  gamm: [1, 1, 0, 0, 0, 0],
  noAutoBright: true,
  outputColor: 0,
  userMul: [1, 1, 1, 1],
  noAutoScale: true,
  userQual: 0,
  userFlip: 0,
};

async function runLibRaw(libraw: LibRaw, bytes: Uint8Array, linear: boolean): Promise<LibRawOutput | undefined> {
  // open() transfers (detaches) its input: hand it a copy so the caller's bytes survive.
  await libraw.open(bytes.slice(), (linear ? linearSettings : {}) as never);
  const opened = (await libraw.metadata(true)) as unknown as LibRawMeta | undefined;
  if (!opened || !(opened.width > 0) || !(opened.height > 0)) return undefined;
  const output: LibRawOutput = { meta: opened };
  try {
    if (linear) {
      const image = await libraw.imageData();
      if (image && image.data instanceof Uint16Array && image.width * image.height * 3 === image.data.length) {
        output.linear = { data: image.data, width: image.width, height: image.height };
      }
    } else {
      const raw = await libraw.rawImageData();
      if (raw && raw.data.length === raw.raw_width * raw.raw_height) {
        output.frame = {
          data: raw.data,
          rawWidth: raw.raw_width,
          rawHeight: raw.raw_height,
          top: raw.top_margin,
          left: raw.left_margin,
          width: raw.width,
          height: raw.height,
        };
      }
    }
  } catch (error) {
    output.unpackError = error instanceof Error ? error.message : String(error);
  }
  // The black level is only known after unpacking.
  output.meta = ((await libraw.metadata(true)) as unknown as LibRawMeta | undefined) ?? opened;
  return output;
}

export async function decodeSensorData(
  bytes: Uint8Array,
  format: RawFormat | 'KDC',
  options: DecodeRawOptions = {},
): Promise<SensorOutcome> {
  const report = inspectContainer(bytes, format);
  if (report.problem) throw containerError(format, report.problem);
  if (report.unsupported) {
    return { kind: 'unsupported_variant', variant: report.unsupported.variant, details: { ...report.unsupported.details, container: report.facts } };
  }
  const linear = report.facts.photometric === 'LinearRaw';
  const pool = options.pool ?? rawDecoderPool();
  let output: LibRawOutput | undefined;
  try {
    output = await pool.run(async (libraw) => {
      const value = await runLibRaw(libraw, bytes, linear);
      return { value, reusable: value !== undefined && value.unpackError === undefined && (value.frame ?? value.linear) !== undefined };
    }, { cpuBudgetMs: decodeCpuBudgetMs(bytes.length), ...options.limits });
  } catch (error) {
    // A stalled decoder says nothing about the file: it stays a service fault (retried upstream).
    if (error instanceof DecodeStalledError) throw error;
    throw decoderError(format, error, bytes.length);
  }
  if (!output) {
    throw new FileError('CORRUPT_FILE', `This ${format} file cannot be analysed: the decoder found no image dimensions in it.`, {
      suggestion: 'The file is damaged or not a complete RAW; upload the original file.',
      details: { format, container: report.facts },
    });
  }
  const { meta } = output;
  const sensorBytes = report.facts.sensorBytes;
  if (typeof sensorBytes === 'number' && sensorBytes < meta.width * meta.height * minSensorBytesPerPixel) {
    // Container checks could not know the dimensions (CR3, RAF); LibRaw's header parse does.
    throw containerError(format, {
      kind: 'metadata_only',
      message: `the file holds camera metadata but no sensor data: ${sensorBytes} bytes are stored for a ${meta.width}x${meta.height} sensor image`,
      details: { sensorBytes, sensorWidth: meta.width, sensorHeight: meta.height, minBytesPerPixel: minSensorBytesPerPixel },
    });
  }
  if (!output.frame && !output.linear) {
    const codec = compressionName(report.facts.sensorCompression as number | undefined) ?? `${format} sensor codec`;
    return {
      kind: 'unsupported_variant',
      variant: codec,
      details: {
        reason: 'the container is readable but LibRaw could not unpack its sensor data',
        decoderMessage: output.unpackError,
        make: meta.camera_make,
        model: meta.camera_model,
        container: report.facts,
      },
    };
  }
  const layout = output.frame ? nonBayerLayout(meta.filters ?? 0) : undefined;
  if (layout) {
    return {
      kind: 'unsupported_variant',
      variant: layout,
      details: { reason: 'the analyses need a 2x2 Bayer mosaic', filters: meta.filters, make: meta.camera_make, model: meta.camera_model, container: report.facts },
    };
  }
  const sensor = output.frame ? withDngEncoding(fromCfaFrame(output.frame, meta), bytes, report.facts) : fromLinear(output.linear!, meta);
  assertNotBlank(format, sensor.cfa);
  const orientation = orientationFromFlip(meta.flip);
  const turned = orientation >= 5;
  const metadata = await cameraMetadata(bytes, format, meta, {
    width: turned ? sensor.height : sensor.width,
    height: turned ? sensor.width : sensor.height,
    orientation,
  });
  return {
    kind: 'decoded',
    sensor: {
      ...sensor,
      orientation,
      metadata,
      container: { ...report.facts, ...sensor.container, libraw: { rawWidth: meta.raw_width, rawHeight: meta.raw_height, visibleWidth: meta.width, visibleHeight: meta.height, dngVersion: meta.dng_version || undefined } },
    },
  };
}

function decoderError(format: string, error: unknown, fileBytes: number): FileError {
  if (error instanceof DecodeBudgetExceededError) {
    // The evidence: the decoder itself worked for its whole budget (dozens of times what a genuine
    // file of this size needs), whatever the machine's load; time spent waiting does not count.
    const seconds = (error.cpuMs / 1000).toFixed(1);
    return new FileError('CORRUPT_FILE', `This ${format} file cannot be analysed: the RAW decoder worked on it for ${seconds} s of processor time without finishing, far longer than a ${(fileBytes / 1_000_000).toFixed(1)} MB file needs, so its data keeps the decoder from completing.`, {
      suggestion: 'The file is damaged or not as the camera wrote it; upload the original RAW file.',
      details: { format, decoderCpuMs: error.cpuMs, cpuBudgetMs: error.cpuBudgetMs, fileBytes },
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FileError('CORRUPT_FILE', `This ${format} file cannot be analysed: the RAW decoder rejected it (${message}).`, {
    suggestion: 'The file is damaged or incomplete; upload the original file.',
    details: { format, decoderMessage: message, crashed: error instanceof DecoderCrashError },
    cause: error,
  });
}

/**
 * LibRaw encodes non-Bayer sensors as small `filters` values: 9 = Fujifilm X-Trans (6x6),
 * 1 = Leaf 16x16 pattern, 0 = no mosaic (Foveon, sRAW) in a CFA container.
 */
function nonBayerLayout(filters: number): string | undefined {
  if (filters === 9) return 'Fujifilm X-Trans 6x6 CFA';
  if (filters === 0) return 'no colour filter mosaic (Foveon or reduced sRAW)';
  if (filters < 1000) return `non-Bayer CFA layout (LibRaw filters ${filters})`;
  return undefined;
}

/** LibRaw's FC(): colour index (into cdesc) of a pixel in visible-area coordinates. */
function filterColor(filters: number, row: number, col: number): number {
  return (filters >>> ((((row << 1) & 14) | (col & 1)) << 1)) & 3;
}

type SensorCore = Pick<SensorData, 'cfa' | 'width' | 'height' | 'cfaPattern' | 'blackLevel' | 'channelBlack' | 'whiteLevel' | 'asShotWb' | 'camToSrgb' | 'container' | 'linearRgb'>;

function whiteBalance(meta: LibRawMeta): [number, number, number, number] {
  const color = meta.color_data;
  const pick = (m: number[] | undefined): number[] | undefined => (m && m[0]! > 0 && m[1]! > 0 && m[2]! > 0 ? m : undefined);
  const mul = pick(color?.cam_mul) ?? pick(color?.pre_mul) ?? [1, 1, 1, 1];
  const g = mul[1]!;
  return [mul[0]! / g, 1, mul[2]! / g, (mul[3]! > 0 ? mul[3]! : g) / g];
}

function cameraToSrgb(meta: LibRawMeta): number[] | undefined {
  const rows = meta.color_data?.rgb_cam;
  if (!rows || rows.length < 3) return undefined;
  const m = rows.slice(0, 3).flatMap((row) => row.slice(0, 3));
  const identity = m.every((v, i) => Math.abs(v - (i % 4 === 0 ? 1 : 0)) < 1e-6);
  const zero = m.every((v) => v === 0);
  return identity || zero || m.some((v) => !Number.isFinite(v)) ? undefined : m;
}

/**
 * The camera's default crop (LibRaw raw_inset_crops[0]) is the area its own JPEG shows; widths
 * and heights are rounded up to even when the visible area allows it, so 2x2 quads stay whole.
 */
function defaultCrop(meta: LibRawMeta, width: number, height: number): { x: number; y: number; w: number; h: number } {
  const crop = meta.raw_inset_crops?.[0];
  if (crop && crop.cwidth > 0 && crop.cheight > 0 && crop.cleft !== 65535 && crop.ctop !== 65535) {
    const x = crop.cleft - meta.left_margin;
    const y = crop.ctop - meta.top_margin;
    let w = crop.cwidth;
    let h = crop.cheight;
    if (w % 2 === 1 && x + w + 1 <= width) w++;
    if (h % 2 === 1 && y + h + 1 <= height) h++;
    if (x >= 0 && y >= 0 && x + w <= width && y + h <= height) return { x, y, w, h };
  }
  return { x: 0, y: 0, w: width, h: height };
}

function fromCfaFrame(frame: NonNullable<LibRawOutput['frame']>, meta: LibRawMeta): SensorCore {
  const crop = defaultCrop(meta, frame.width, frame.height);
  const cfa = new Uint16Array(crop.w * crop.h);
  for (let y = 0; y < crop.h; y++) {
    const start = (frame.top + crop.y + y) * frame.rawWidth + frame.left + crop.x;
    cfa.set(frame.data.subarray(start, start + crop.w), y * crop.w);
  }
  const filters = meta.filters ?? 0;
  const cdesc = meta.cdesc || 'RGBG';
  const pattern = [0, 1, 2, 3]
    .map((i) => cdesc[filterColor(filters, crop.y + (i >> 1), crop.x + (i & 1))] ?? '?')
    .join('');
  const blackLevel = meta.color_data?.black ?? 0;
  return {
    cfa,
    width: crop.w,
    height: crop.h,
    cfaPattern: pattern,
    blackLevel,
    whiteLevel: meta.color_data?.maximum || 65535,
    asShotWb: whiteBalance(meta),
    camToSrgb: cameraToSrgb(meta),
    container: {
      cfaSource: 'sensor',
      crop: { x: crop.x, y: crop.y, width: crop.w, height: crop.h },
      opticalBlack: opticalBlackStats(frame, crop),
    },
  };
}

/**
 * Statistics of the masked (optically black) columns left of the image: their mean is the true
 * black level and their spread the read noise, both independent evidence for the integrity check.
 */
function opticalBlackStats(frame: NonNullable<LibRawOutput['frame']>, crop: { x: number; y: number }): Record<string, unknown> | undefined {
  // Skip 2 columns at each edge of the masked strip: they often carry transition artefacts.
  const x0 = 2;
  const x1 = frame.left - 2;
  if (x1 - x0 < 4) return undefined;
  const sum = [0, 0, 0, 0];
  const sumSq = [0, 0, 0, 0];
  const n = [0, 0, 0, 0];
  for (let y = frame.top; y < frame.top + frame.height; y++) {
    for (let x = x0; x < x1; x++) {
      const v = frame.data[y * frame.rawWidth + x]!;
      const i = (((y - frame.top - crop.y) & 1) << 1) | ((x - frame.left - crop.x) & 1);
      sum[i]! += v;
      sumSq[i]! += v * v;
      n[i]!++;
    }
  }
  const mean = sum.map((s, i) => s / n[i]!);
  const std = sumSq.map((s, i) => Math.sqrt(Math.max(0, s / n[i]! - mean[i]! ** 2)));
  return { columns: x1 - x0, pixels: n.reduce((a, b) => a + b, 0), mean, std };
}

function fromLinear(linear: NonNullable<LibRawOutput['linear']>, meta: LibRawMeta): SensorCore {
  const { width, height, data } = linear;
  // An RGGB mosaic sampled from the demosaiced data, so CFA consumers keep working; it is
  // labelled as resampled and the integrity check treats it as not being sensor data.
  const cfa = new Uint16Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const channel = (y & 1) === 0 ? ((x & 1) === 0 ? 0 : 1) : (x & 1) === 0 ? 1 : 2;
      cfa[y * width + x] = data[(y * width + x) * 3 + channel]!;
    }
  }
  const white = Math.max(...(meta.color_data?.dng_levels?.dng_whitelevel ?? [65535]).filter((v) => v > 0), 1);
  return {
    cfa,
    width,
    height,
    cfaPattern: 'RGGB',
    blackLevel: meta.color_data?.black ?? 0,
    whiteLevel: white,
    asShotWb: whiteBalance(meta),
    camToSrgb: cameraToSrgb(meta),
    linearRgb: data,
    container: { cfaSource: 'resampled_from_linear_raw' },
  };
}

/** Garbage that slips past the container check decodes to a constant frame. */
function assertNotBlank(format: string, cfa: Uint16Array): void {
  const step = Math.max(1, Math.floor(cfa.length / 100_000));
  const first = cfa[0];
  let distinct = false;
  for (let i = 0; i < cfa.length; i += step) {
    if (cfa[i] !== first) {
      distinct = true;
      break;
    }
  }
  if (!distinct) {
    throw new FileError('UNPROCESSABLE_FILE', `This ${format} file cannot be analysed: the file holds camera metadata but its sensor area decodes to a constant value (${first}), not image data.`, {
      suggestion: 'Upload the original RAW file from the camera.',
      details: { format, constantValue: first },
    });
  }
}
