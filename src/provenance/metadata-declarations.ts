/**
 * AI self-declarations outside C2PA: IPTC/XMP DigitalSourceType, text chunks that image
 * generators write into PNGs (Stable Diffusion web UIs' "parameters", ComfyUI's "prompt" and
 * "workflow", InvokeAI, NovelAI...), EXIF Software / XMP CreatorTool and XMP history
 * softwareAgent naming a generator. Unsigned: anyone can write or strip them, so they only
 * ever support `self_declared_ai`; they count whether or not the file also has a manifest.
 */
import { inflateSync } from 'node:zlib';
import exifr from 'exifr';
import { GENERATOR_NAMES, generativeSourceTypes, type AiDeclaration } from './declarations.js';
import type { ImageFormat } from './format.js';

/** PNG text keys written by known generators. */
const GENERATOR_PNG_KEYS = new Set(['parameters', 'prompt', 'workflow', 'dream', 'sd-metadata', 'invokeai_metadata', 'generation_data']);
const MAX_TEXT_CHUNK = 1 << 20;

const XMP_DST = /DigitalSourceType[^\n]{0,200}?cv\.iptc\.org\/newscodes\/digitalsourcetype\/(\w+)/g;
/** xmpMM:History events name the tool of each step: `stEvt:softwareAgent="..."` or as an element. */
const XMP_SOFTWARE_AGENT = /stEvt:softwareAgent(?:\s*=\s*["']([^"'<>]{1,200})["']|>([^<]{1,200})<)/g;

function xmpDeclarations(text: string): AiDeclaration[] {
  const found: AiDeclaration[] = [];
  for (const match of text.matchAll(XMP_DST)) {
    const term = match[1] ?? '';
    if (generativeSourceTypes.has(term)) {
      found.push({ sourceType: term, source: 'xmp', location: 'Iptc4xmpExt:DigitalSourceType' });
    }
  }
  for (const match of text.matchAll(XMP_SOFTWARE_AGENT)) {
    const agent = (match[1] ?? match[2] ?? '').trim();
    if (GENERATOR_NAMES.test(agent)) found.push({ sourceType: agent, source: 'xmp_software_agent', location: 'xmpMM:History stEvt:softwareAgent' });
  }
  return found;
}

/** tEXt / zTXt / iTXt chunks of a PNG as key -> text (bounded, never throws). */
export function pngTextChunks(bytes: Uint8Array): Map<string, string> {
  const texts = new Map<string, string>();
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let offset = 8; offset + 12 <= view.length; ) {
    const length = view.readUInt32BE(offset);
    const type = view.toString('latin1', offset + 4, offset + 8);
    const start = offset + 8;
    if (start + length > view.length) break;
    if (length <= MAX_TEXT_CHUNK && (type === 'tEXt' || type === 'zTXt' || type === 'iTXt')) {
      const data = view.subarray(start, start + length);
      const nul = data.indexOf(0);
      if (nul > 0) {
        const key = data.toString('latin1', 0, nul);
        try {
          if (type === 'tEXt') texts.set(key, data.toString('latin1', nul + 1));
          else if (type === 'zTXt') texts.set(key, inflateSync(data.subarray(nul + 2), { maxOutputLength: MAX_TEXT_CHUNK }).toString('latin1'));
          else {
            // iTXt: key\0 flag method lang\0 translated\0 text
            const compressed = data[nul + 1] === 1;
            const langEnd = data.indexOf(0, nul + 3);
            const translatedEnd = langEnd < 0 ? -1 : data.indexOf(0, langEnd + 1);
            if (translatedEnd > 0) {
              const body = data.subarray(translatedEnd + 1);
              texts.set(key, (compressed ? inflateSync(body, { maxOutputLength: MAX_TEXT_CHUNK }) : body).toString('utf8'));
            }
          }
        } catch {
          // A corrupt compressed chunk is not a declaration; keep reading the others.
        }
      }
    }
    if (type === 'IEND') break;
    offset = start + length + 4;
  }
  return texts;
}

async function softwareDeclarations(bytes: Uint8Array): Promise<AiDeclaration[]> {
  let tags: Record<string, unknown> | undefined;
  try {
    tags = (await exifr.parse(Buffer.from(bytes), { tiff: true, xmp: true, icc: false, iptc: false, jfif: false })) as
      | Record<string, unknown>
      | undefined;
  } catch {
    return [];
  }
  const found: AiDeclaration[] = [];
  for (const field of ['Software', 'CreatorTool'] as const) {
    const value = tags?.[field];
    if (typeof value === 'string' && GENERATOR_NAMES.test(value)) {
      found.push({ sourceType: value, source: 'exif_software', location: field });
    }
  }
  return found;
}

export async function metadataAiDeclarations(bytes: Uint8Array, format: ImageFormat): Promise<AiDeclaration[]> {
  const declarations: AiDeclaration[] = [];
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  declarations.push(...xmpDeclarations(text));
  if (format === 'png') {
    for (const [key, value] of pngTextChunks(bytes)) {
      if (key === 'XML:com.adobe.xmp') declarations.push(...xmpDeclarations(value));
      else if (GENERATOR_PNG_KEYS.has(key.toLowerCase())) {
        declarations.push({ sourceType: 'generator', source: 'png_text', location: key });
      } else if (key === 'Software' && GENERATOR_NAMES.test(value)) {
        declarations.push({ sourceType: value, source: 'png_text', location: key });
      }
    }
  }
  declarations.push(...(await softwareDeclarations(bytes)));
  // The same XMP packet can be seen both in the raw scan and inside a PNG chunk.
  const unique = new Map(declarations.map((d) => [`${d.source}|${d.location}|${d.sourceType}`, d]));
  return [...unique.values()];
}
