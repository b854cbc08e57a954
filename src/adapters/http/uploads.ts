import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError } from '../../core/errors.js';
import { BlobTooLargeError, type BlobStore, type ParsedUpload, type UploadedFile } from '../../core/blob-store.js';
import { cleanFileName } from '../../core/text.js';
import { invalidRequest } from '../../core/validation.js';

/**
 * Streams multipart files straight into staged blobs (hashing as they arrive) and enforces the
 * size limit while streaming. On any rejection every staged file is discarded, so nothing of
 * a refused upload survives.
 */
export async function receiveUpload(
  req: Request,
  res: Response,
  blobs: BlobStore,
  options: { fileFields: string[]; textFields: string[]; maxBytes: number },
): Promise<ParsedUpload> {
  const staged: UploadedFile[] = [];
  // multer can abort before a failing stage has removed its file: wait for every stage to settle.
  const inFlight: Promise<unknown>[] = [];
  const storage: multer.StorageEngine = {
    _handleFile(_req, file, callback) {
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
  const upload = multer({
    storage,
    // Browsers and HTTP clients send file names as UTF-8 (filename="café.jpg"); busboy's default
    // reads them as latin1 ("cafÃ©.jpg"). An RFC 5987 filename*= names its own charset and wins.
    defParamCharset: 'utf8',
    limits: { files: options.fileFields.length, fields: options.textFields.length + 2, fieldSize: 4096, parts: options.fileFields.length + options.textFields.length + 2 },
  }).fields(options.fileFields.map((name) => ({ name, maxCount: 1 })));

  try {
    if (!req.is('multipart/form-data')) {
      throw invalidRequest([{ loc: ['body'], msg: 'Send the files as multipart/form-data.', type: 'missing' }]);
    }
    await new Promise<void>((resolve, reject) => upload(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
      if (!options.textFields.includes(name)) {
        throw invalidRequest([{ loc: ['body', name], msg: 'Unknown field: not part of this request.', type: 'extra_forbidden' }]);
      }
      // A field sent twice arrives as an array; guessing which one was meant would
      // silently ignore the other, so the request is refused instead.
      if (Array.isArray(value)) {
        throw invalidRequest([{ loc: ['body', name], msg: 'Send this field once.', type: 'too_many' }]);
      }
      fields[name] = String(value);
    }
    return { files: new Map(staged.map((f) => [f.field, f])), fields };
  } catch (error) {
    await Promise.all(inFlight);
    await Promise.all(staged.map((f) => f.staged.discard()));
    throw translate(error, options.maxBytes);
  }
}

function translate(error: unknown, maxBytes: number): unknown {
  if (error instanceof BlobTooLargeError) {
    return new AppError('PAYLOAD_TOO_LARGE', `The file is larger than the limit of ${maxBytes} bytes (${(maxBytes / 1048576).toFixed(0)} MiB).`, {
      suggestion: 'Upload a smaller file; camera RAW files and JPEGs of current cameras fit within the limit.',
      details: { limit_bytes: maxBytes },
    });
  }
  if (error instanceof multer.MulterError) {
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
