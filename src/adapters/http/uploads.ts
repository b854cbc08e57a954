import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError, type UnprocessableError } from '../../core/errors.js';
import { BlobTooLargeError, type BlobStore, type ParsedUpload, type UploadedFile } from '../../core/blob-store.js';
import { cleanFileName } from '../../core/text/text.js';
import { decodeUtf8Strictly, invalidUtf8At, notUtf8Message, NOT_UTF8_TYPE } from '../../core/text/utf8.js';
import { invalidRequest, refuseUnrepresentable } from '../../core/http/validation.js';

/**
 * Streams multipart files straight into staged blobs (hashing as they arrive) and enforces the
 * size limit while streaming. On any rejection every staged file is discarded, so nothing of
 * a refused upload survives.
 */
export async function receiveUpload(
  req: Request,
  res: Response,
  blobs: BlobStore,
  options: { fileFields: readonly string[]; textFields: readonly string[]; maxBytes: number },
): Promise<ParsedUpload> {
  const staged: UploadedFile[] = [];
  let headers: PartHeaderWatch = { refusal: () => undefined };
  // multer can abort before a failing stage has removed its file: wait for every stage to settle.
  const inFlight: Promise<unknown>[] = [];
  const storage: multer.StorageEngine = {
    _handleFile(_req, file, callback) {
      // The watch has seen this part's header before busboy (its listener was added first).
      const refusal = headers.refusal();
      if (refusal) {
        file.stream.resume();
        callback(refusal);
        return;
      }
      const stage = blobs.stage(file.stream, { maxBytes: options.maxBytes });
      inFlight.push(stage.catch(() => undefined));
      stage.then(
        (blob) => {
          // The name is shown on pages and in e-mails: controls and bidi characters removed, never refused (D-082).
          staged.push({ field: file.fieldname, filename: cleanFileName(file.originalname), staged: blob });
          callback(null, {});
        },
        (error) => callback(error),
      );
    },
    _removeFile(_req, _file, callback) {
      callback(null);
    },
  };
  // defCharset and streamHandler are multer 2's (index.js), not in its type definitions.
  const upload = multer({
    storage,
    // Browsers and HTTP clients send file names as UTF-8 (filename="café.jpg"); busboy's default
    // reads them as latin1 ("cafÃ©.jpg"). An RFC 5987 filename*= names its own charset and wins.
    // Bytes that are not UTF-8 are refused by the header watch before busboy decodes them.
    defParamCharset: 'utf8',
    // Field values are read as Latin-1 (one character a byte, nothing lost) and decoded strictly by sentText.
    defCharset: 'latin1',
    // The header watch sees every chunk just before busboy does.
    streamHandler: (request: Request, busboy: NodeJS.WritableStream) => {
      headers = watchPartHeaders(request);
      request.pipe(busboy);
    },
    limits: { files: options.fileFields.length, fields: options.textFields.length + 2, fieldSize: 4096, parts: options.fileFields.length + options.textFields.length + 2 },
  } as multer.Options).fields(options.fileFields.map((name) => ({ name, maxCount: 1 })));

  try {
    if (!req.is('multipart/form-data')) {
      throw invalidRequest([{ loc: ['body'], msg: 'Send the files as multipart/form-data.', type: 'missing' }]);
    }
    await new Promise<void>((resolve, reject) => upload(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
    const refused = headers.refusal();
    if (refused) throw refused;
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
      // A file part with an empty file name (filename="", a browser's file input left empty) is read as a text field.
      if (options.fileFields.includes(name)) throw fileRequired(name);
      if (!options.textFields.includes(name)) {
        throw invalidRequest([{ loc: ['body', name], msg: 'Unknown field: not part of this request.', type: 'extra_forbidden' }]);
      }
      // A field sent twice arrives as an array; guessing which one was meant would
      // silently ignore the other, so the request is refused instead.
      if (Array.isArray(value)) {
        throw invalidRequest([{ loc: ['body', name], msg: 'Send this field once.', type: 'too_many' }]);
      }
      const text = sentText(String(value));
      if (text === null) throw notUtf8(['body', name], String(value), '');
      fields[name] = text;
    }
    // The text rule of every JSON field: no NUL, no unpaired surrogate.
    refuseUnrepresentable('body', fields);
    return { files: new Map(staged.map((f) => [f.field, f])), fields };
  } catch (error) {
    await Promise.all(inFlight);
    await Promise.all(staged.map((f) => f.staged.discard()));
    // A part refused for its header's bytes is what went wrong, whatever multer then made of its name.
    throw headers.refusal() ?? translate(error, options);
  }
}

interface PartHeaderWatch {
  /** The first part header seen so far that is refused: bytes that are not UTF-8 in a name or file name. */
  refusal(): UnprocessableError | undefined;
}

const MAX_PART_HEADER_BYTES = 64 * 1024;

/**
 * Watches the multipart body's part headers as they stream by, beside busboy, which decodes a
 * part's name and file name with U+FFFD in place of bytes that are not UTF-8 (issue 36 item 9):
 * each Content-Disposition's raw bytes must be UTF-8, and so must the percent-decoded bytes of a
 * UTF-8 filename*=. Only the delimiter is searched for in the file's bytes (native indexOf).
 */
function watchPartHeaders(req: Request): PartHeaderWatch {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(req.get('content-type') ?? '');
  if (!boundary) return { refusal: () => undefined };
  const delimiter = Buffer.from(`\r\n--${boundary[1] ?? boundary[2]}`);
  const headerEnd = Buffer.from('\r\n\r\n');
  let refusal: UnprocessableError | undefined;
  let pending = Buffer.from('\r\n');
  let inHeaders = false;
  const watch = (chunk: Buffer) => {
    let data = Buffer.concat([pending, chunk]);
    for (;;) {
      if (!inHeaders) {
        const at = data.indexOf(delimiter);
        if (at === -1) {
          pending = data.subarray(Math.max(0, data.length - delimiter.length + 1));
          return;
        }
        data = data.subarray(at + delimiter.length);
        inHeaders = true;
      }
      const end = data.indexOf(headerEnd);
      if (end === -1) {
        // Busboy refuses an oversized header block itself: stop watching past the bound.
        if (data.length > MAX_PART_HEADER_BYTES) req.off('data', watch);
        pending = data;
        return;
      }
      refusal ??= refusedDisposition(data.subarray(0, end));
      if (refusal) {
        req.off('data', watch);
        return;
      }
      data = data.subarray(end + headerEnd.length);
      inHeaders = false;
    }
  };
  req.on('data', watch);
  return { refusal: () => refusal };
}

/** A part's header block (after its delimiter): the refusal of its Content-Disposition, if it is not UTF-8. */
function refusedDisposition(block: Buffer): UnprocessableError | undefined {
  const lines = block.toString('latin1').split('\r\n');
  const disposition = lines.find((line) => /^content-disposition\s*:/i.test(line));
  if (!disposition) return undefined;
  const field = /[;\s]name\s*=\s*"([^"]*)"/i.exec(disposition)?.[1] ?? /[;\s]name\s*=\s*([^;\s]+)/i.exec(disposition)?.[1];
  const named = field !== undefined && /^[\x20-\x7e]+$/.test(field) ? [field] : [];
  const bytes = Buffer.from(disposition, 'latin1');
  const at = invalidUtf8At(bytes);
  if (at !== -1) {
    const inFileName = /filename/i.test(disposition.slice(0, at));
    return invalidRequest([{ loc: ['body', ...named, ...(inFileName ? ['filename'] : [])], msg: `${inFileName ? 'The file name' : 'The part’s name'}: ${notUtf8Message(bytes, at)}`, type: NOT_UTF8_TYPE }]);
  }
  const extended = /filename\*\s*=\s*(utf-?8)'[^']*'([^;\s]*)/i.exec(disposition);
  if (extended) {
    const decoded = Buffer.from(extended[2]!.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
    const bad = invalidUtf8At(decoded);
    if (bad !== -1) return invalidRequest([{ loc: ['body', ...named, 'filename'], msg: `The file name (filename*): ${notUtf8Message(decoded, bad)}`, type: NOT_UTF8_TYPE }]);
  }
  return undefined;
}

/**
 * What the client sent, from what busboy decoded as Latin-1: the bytes again, decoded as strict
 * UTF-8 (null when they are not UTF-8). A text holding characters above U+00FF was decoded by a
 * charset the part named itself (an RFC 5987 filename*=, a part's Content-Type charset, both rare:
 * RFC 7578 forbids filename*): kept, unless its decoder replaced bytes with U+FFFD.
 */
function sentText(decoded: string): string | null {
  if (/[^\u0000-\u00ff]/.test(decoded)) return decoded.includes('\uFFFD') ? null : decoded;
  return decodeUtf8Strictly(Buffer.from(decoded, 'latin1'));
}

function notUtf8(loc: string[], decoded: string, what: string) {
  const bytes = Buffer.from(decoded, /[^\u0000-\u00ff]/.test(decoded) ? 'utf8' : 'latin1');
  const at = invalidUtf8At(bytes);
  return invalidRequest([{ loc, msg: `${what}${at === -1 ? 'Not valid UTF-8: its charset decoder replaced bytes with U+FFFD. Send it as UTF-8: it is refused, never altered.' : notUtf8Message(bytes, at)}`, type: NOT_UTF8_TYPE }]);
}

/** A file field that arrived without a file: the error of a missing file (the use cases' "Field required."). */
const fileRequired = (field: string) =>
  invalidRequest([{ loc: ['body', field], msg: 'Field required: a file is required (this part has no file name, so it carries no file). Send the file with a file name.', type: 'missing' }]);

function translate(error: unknown, { maxBytes, fileFields }: { maxBytes: number; fileFields: readonly string[] }): unknown {
  if (error instanceof BlobTooLargeError) {
    return new AppError('PAYLOAD_TOO_LARGE', `The file is larger than the limit of ${maxBytes} bytes (${(maxBytes / 1048576).toFixed(0)} MiB).`, {
      suggestion: 'Upload a smaller file; camera RAW files and JPEGs of current cameras fit within the limit.',
      details: { limit_bytes: maxBytes },
    });
  }
  if (error instanceof multer.MulterError) {
    // A file part sent with filename="" is read as a text field, and a file is longer than a field may be.
    if (error.code === 'LIMIT_FIELD_VALUE' && fileFields.includes(error.field ?? '')) return fileRequired(error.field!);
    if (error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT') {
      return invalidRequest([{ loc: ['body', error.field ?? 'file'], msg: 'Unexpected file field: send "image" and optionally "raw", once each.', type: 'extra_forbidden' }]);
    }
    return invalidRequest([{ loc: ['body', error.field ?? 'body'], msg: error.message, type: error.code.toLowerCase() }]);
  }
  const message = (error as Error)?.message ?? '';
  if (/Unexpected end of form|Multipart: Boundary not found|Malformed part header/i.test(message)) {
    return invalidRequest([{ loc: ['body'], msg: `Malformed multipart body: ${message}`, type: 'multipart_invalid' }]);
  }
  return error;
}
