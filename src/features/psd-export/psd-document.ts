/**
 * The layered PSD document, written with ag-psd: three full-canvas layers, bottom to top the
 * photo, the registered RAW rendition and the hidden SSIM heatmap; the photo as the composite
 * (what viewers without layer support show); the verification's facts as XMP; an sRGB ICC
 * profile. 8-bit RGB, RLE (ag-psd's default: fast, and what every PSD reader supports).
 */
import { writePsdUint8Array, type Psd } from 'ag-psd';
import sharp from 'sharp';
import type { Rgba } from './psd-pixels.js';

/** Layer names, bottom to top: what each layer is, as a person reading the Layers panel needs it. */
export const psdLayerNames = {
  photo: 'Photo (as submitted, orientation applied)',
  rendition: 'RAW rendition (registered to the photo)',
  heatmap: 'SSIM difference heatmap (blue = difference)',
} as const;

/** The XMP namespace of the verification's facts in the document's metadata. */
export const psdXmpNamespace = 'https://ns.photo-verification.eu/psd-export/1.0/';

export interface PsdFacts {
  verificationId: string;
  shortCode: string;
  assuranceLevel: string;
  /** The photo's original file name. */
  name: string;
}

/**
 * The document's bytes, as parts to be written one after another (the ICC profile is spliced in
 * without copying the file: see withIccProfile). The layer buffers are taken over: callers drop
 * their references, and ag-psd's own copies go when this returns.
 */
export async function writePsdDocument(layers: { photo: Rgba; rendition: Rgba; heatmap: Rgba }, facts: PsdFacts): Promise<Uint8Array[]> {
  const { width, height } = layers.photo;
  const full = { top: 0, left: 0, bottom: height, right: width };
  const psd: Psd = {
    width,
    height,
    bitsPerChannel: 8,
    // The photo is the composite: viewers that ignore layers show the photo.
    imageData: layers.photo,
    imageResources: {
      xmpMetadata: xmpPacket(facts),
      resolutionInfo: { horizontalResolution: 72, horizontalResolutionUnit: 'PPI', widthUnit: 'Inches', verticalResolution: 72, verticalResolutionUnit: 'PPI', heightUnit: 'Inches' },
    },
    children: [
      { name: psdLayerNames.photo, ...full, imageData: layers.photo },
      { name: psdLayerNames.rendition, ...full, imageData: layers.rendition },
      { name: psdLayerNames.heatmap, ...full, imageData: layers.heatmap, hidden: true },
    ],
  };
  // noBackground: the photo stays a named layer (a bottom layer without transparency would otherwise become Photoshop's "Background").
  const bytes = writePsdUint8Array(psd, { generateThumbnail: false, noBackground: true });
  return withIccProfile(bytes, await srgbProfile());
}

/**
 * The verification's facts as an XMP packet: the photo's title and a description in words
 * (dc:), and each fact in its own property of this service's namespace (pv:), for programs.
 */
export function xmpPacket(facts: PsdFacts): string {
  const description = `Verification ${facts.verificationId}, REF: ${facts.shortCode}, assurance level ${facts.assuranceLevel}. Layers: the photo, the RAW rendered and registered to it, and a hidden SSIM difference heatmap (blue = difference).`;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pv="${psdXmpNamespace}">
<pv:VerificationId>${xml(facts.verificationId)}</pv:VerificationId>
<pv:ShortCode>${xml(facts.shortCode)}</pv:ShortCode>
<pv:AssuranceLevel>${xml(facts.assuranceLevel)}</pv:AssuranceLevel>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xml(facts.name)}</rdf:li></rdf:Alt></dc:title>
<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xml(description)}</rdf:li></rdf:Alt></dc:description>
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

let srgb: Promise<Uint8Array> | undefined;

/** The sRGB ICC profile libvips embeds (sharp's `withIccProfile('srgb')`), read back once. */
function srgbProfile(): Promise<Uint8Array> {
  srgb ??= (async () => {
    const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000000' } }).withIccProfile('srgb').png().toBuffer();
    const { icc } = await sharp(png).metadata();
    if (!icc) throw new Error('sharp embedded no sRGB profile');
    return new Uint8Array(icc);
  })();
  return srgb;
}

/** Image resource 1039, the document's ICC profile. */
const iccResourceId = 1039;

/**
 * ag-psd 31 writes no ICC profile (its handler for resource 1039 is a development mock), so the
 * resource is appended to the image resources section of the written file: the section's length
 * is patched in place and the file becomes three parts (up to the section's end, the new
 * resource block, the rest), with no copy of the layer data.
 * Layout (Adobe's PSD specification): a 26-byte header; the colour mode data (4-byte length +
 * data); the image resources (4-byte length + blocks: '8BIM', id, padded Pascal name, 4-byte
 * size, data padded to even).
 */
export function withIccProfile(file: Uint8Array, icc: Uint8Array): Uint8Array[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const colourModeLength = view.getUint32(26);
  const resourcesAt = 26 + 4 + colourModeLength;
  const resourcesLength = view.getUint32(resourcesAt);
  const end = resourcesAt + 4 + resourcesLength;
  const padded = icc.length + (icc.length % 2);
  const block = new Uint8Array(4 + 2 + 2 + 4 + padded);
  const b = new DataView(block.buffer);
  block.set([0x38, 0x42, 0x49, 0x4d]); // '8BIM'
  b.setUint16(4, iccResourceId);
  b.setUint16(6, 0); // empty name, padded to even
  b.setUint32(8, icc.length);
  block.set(icc, 12);
  view.setUint32(resourcesAt, resourcesLength + block.length);
  return [file.subarray(0, end), block, file.subarray(end)];
}
