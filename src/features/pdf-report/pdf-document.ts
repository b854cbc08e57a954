import { PDFDocument, PDFString, rgb, StandardFonts, type PDFFont, type PDFImage, type PDFPage } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { aboutFacts, analysesInWords, resultWords, timeText, type SharedReport } from '../sharing/index.js';

/**
 * The signed PDF report's pages, laid out from the report the report page shows (sharing's
 * SharedReport and its words: the level, the verdict and why, the facts, the analyses), so the
 * PDF says nothing the page does not. A4, the standard Helvetica (every reader has it; text
 * stays extractable), with a signature placeholder that pdf-signature.ts fills.
 */

export interface PdfReportContent {
  serviceName: string;
  report: SharedReport;
  /** The photo, downscaled to a JPEG (pdf-images.ts); null when no preview could be made. */
  photo: Uint8Array | null;
  /** The evidence images the report page shows (heatmap, RAW rendition), downscaled JPEGs. */
  evidence: { caption: string; jpeg: Uint8Array }[];
  /** The share page and its QR code (PNG); null when the verification is not shared. */
  share: { url: string; qrPng: Uint8Array } | null;
  auditBundleSha256: string;
  issuedAt: Date;
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 48;
const WIDTH = A4.width - 2 * MARGIN;
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.38, 0.38, 0.42);

/** A top-down writer: text wrapped to the column, a new page whenever the next block would not fit. */
class Writer {
  page: PDFPage;
  y = A4.height - MARGIN;
  private readonly encodable: Set<number>;

  constructor(
    private readonly doc: PDFDocument,
    private readonly font: PDFFont,
    private readonly bold: PDFFont,
  ) {
    this.page = doc.addPage([A4.width, A4.height]);
    this.encodable = new Set(font.getCharacterSet());
  }

  /** Helvetica's WinAnsi encoding lacks some characters the report's words use (arrows, ticks): a neighbour or nothing. */
  private plain(text: string): string {
    return [...text.replace(/[✓✗]/g, '').replace(/[−–]/g, '-').replace(/≥/g, '>=').replace(/≤/g, '<=')].map((c) => (this.encodable.has(c.codePointAt(0)!) ? c : '?')).join('');
  }

  room(height: number): void {
    if (this.y - height >= MARGIN) return;
    this.page = this.doc.addPage([A4.width, A4.height]);
    this.y = A4.height - MARGIN;
  }

  private lines(text: string, font: PDFFont, size: number, width: number): string[] {
    const lines: string[] = [];
    let line = '';
    for (const word of this.plain(text).split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (line && font.widthOfTextAtSize(next, size) > width) {
        lines.push(line);
        line = word;
      } else {
        line = next;
      }
    }
    if (line) lines.push(line);
    return lines;
  }

  text(text: string, options: { size?: number; bold?: boolean; color?: typeof INK; x?: number; width?: number; gap?: number } = {}): void {
    const size = options.size ?? 10;
    const font = options.bold ? this.bold : this.font;
    const x = options.x ?? MARGIN;
    for (const line of this.lines(text, font, size, options.width ?? WIDTH - (x - MARGIN))) {
      this.room(size * 1.35);
      this.y -= size * 1.35;
      this.page.drawText(line, { x, y: this.y, size, font, color: options.color ?? INK });
    }
    this.y -= options.gap ?? 4;
  }

  heading(text: string): void {
    this.room(40);
    this.y -= 8;
    this.text(text, { size: 13, bold: true, gap: 4 });
  }

  /** A term and its value on one line (the value wrapped beside the term). */
  fact(term: string, value: string): void {
    const termWidth = 150;
    const top = this.y;
    this.text(term, { size: 9.5, color: MUTED, width: termWidth - 8, gap: 0 });
    const after = this.y;
    this.y = top;
    this.text(value, { size: 9.5, x: MARGIN + termWidth, gap: 0 });
    this.y = Math.min(this.y, after) - 3;
  }

  /** A URL as text that opens it (a URI link annotation over the line). */
  link(url: string): void {
    const size = 9.5;
    const top = this.y;
    this.text(url, { size, bold: true, color: rgb(0.05, 0.25, 0.6) });
    const width = Math.min(this.bold.widthOfTextAtSize(this.plain(url), size), WIDTH);
    const { context } = this.doc;
    const annotation = context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [MARGIN, this.y, MARGIN + width, top], Border: [0, 0, 0], A: { Type: 'Action', S: 'URI', URI: PDFString.of(url) } });
    this.page.node.addAnnot(context.register(annotation));
  }

  image(image: PDFImage, maxWidth: number, maxHeight: number, x = MARGIN): { width: number; height: number } {
    const scale = Math.min(maxWidth / image.width, maxHeight / image.height, 1);
    const size = { width: image.width * scale, height: image.height * scale };
    this.room(size.height + 4);
    this.page.drawImage(image, { x, y: this.y - size.height, ...size });
    return size;
  }
}

/** The report's result in words: the level and what it means, the verdict and why (an image-only verification's). */
function result(w: Writer, report: SharedReport): void {
  w.heading('Result');
  const level = report.assurance_level;
  if (!level) {
    w.text('Not rated.');
    return;
  }
  const { words, verdict, reason } = resultWords(report, level);
  w.text(`Assurance level: ${words.label}`, { size: 15, bold: true });
  w.text(report.verification_mode === 'raw_pair' ? words.pair : words.imageOnly);
  if (verdict) {
    w.text(`Verdict: ${verdict.label}`, { size: 12, bold: true });
    w.text(verdict.meaning);
  }
  const why = reason ?? report.assurance_reason;
  if (why) w.text(`Why: ${why}`, { bold: false });
}

export async function buildPdfReport(content: PdfReportContent): Promise<Uint8Array> {
  const { report, serviceName } = content;
  const doc = await PDFDocument.create();
  doc.setTitle(`Verification report: ${report.name}`);
  doc.setAuthor(serviceName);
  doc.setCreator(serviceName);
  doc.setProducer(serviceName);
  doc.setCreationDate(content.issuedAt);
  doc.setModificationDate(content.issuedAt);
  const w = new Writer(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));

  w.text(`${serviceName} · Photo authenticity report`, { size: 9, color: MUTED });
  w.text('Verification report', { size: 20, bold: true, gap: 2 });
  w.text(report.name, { size: 11, color: MUTED, gap: 10 });

  if (content.photo) {
    const photo = await doc.embedJpg(content.photo);
    const size = w.image(photo, WIDTH, 260);
    w.y -= size.height + 4;
    w.text(`The photo that was verified: ${report.name}`, { size: 8.5, color: MUTED });
  }
  result(w, report);

  w.heading('About this verification');
  for (const fact of aboutFacts(report)) w.fact(fact.term, fact.iso ? timeText(fact.iso) : fact.text);

  // The link and its QR code kept together, on the first page when it has room.
  w.room(content.share ? 190 : 50);
  w.heading('Shared report');
  if (content.share) {
    w.text('The report page online (the same result, kept current):', { size: 9.5, gap: 2 });
    w.link(content.share.url);
    const qr = await doc.embedPng(content.share.qrPng);
    const size = w.image(qr, 110, 110);
    w.y -= size.height + 4;
  } else {
    w.text('This verification was not shared when the report was issued.', { size: 9.5 });
  }

  const analyses = analysesInWords(report);
  if (analyses.length) {
    w.heading('Analyses');
    for (const { result: r, words, line } of analyses) {
      w.text(`${words.name}: ${r.result === true ? 'Pass' : r.result === false ? 'Fail' : 'Not decided'}`, { bold: true, gap: 0 });
      if (words.question) w.text(words.question, { size: 9, color: MUTED, gap: 0 });
      if (line) w.text(line, { size: 9.5 });
      w.y -= 2;
    }
  }

  if (content.evidence.length) {
    w.heading('Evidence');
    const column = (WIDTH - 12) / 2;
    const images = await Promise.all(content.evidence.map(async (e) => ({ caption: e.caption, image: await doc.embedJpg(e.jpeg) })));
    const tallest = Math.max(...images.map(({ image }) => (image.height * Math.min(column / image.width, 220 / image.height, 1))));
    w.room(tallest + 30);
    images.forEach(({ image }, i) => w.image(image, column, 220, MARGIN + i * (column + 12)));
    w.y -= tallest;
    const top = w.y;
    let bottom = w.y;
    images.forEach(({ caption }, i) => {
      w.y = top;
      w.text(caption, { size: 8.5, color: MUTED, x: MARGIN + i * (column + 12), width: column, gap: 0 });
      bottom = Math.min(bottom, w.y);
    });
    w.y = bottom - 4;
  }

  w.heading('File hashes (SHA-256)');
  w.text('Of the files as they were submitted: compute the SHA-256 of your copy and compare.', { size: 9, color: MUTED });
  w.fact('Photo', report.image_photo_hash.replace(/^sha256:/, ''));
  if (report.raw_photo_hash) w.fact('RAW file', report.raw_photo_hash.replace(/^sha256:/, ''));

  w.heading('Tamper-evident record');
  const anchor = report.anchor;
  if (anchor) {
    w.fact('Anchored', timeText(anchor.sealed_at));
    w.fact('Batch', `number ${anchor.batch_id}`);
    w.fact('Timestamp', anchor.timestamped ? 'confirmed by an independent timestamp authority' : 'none (the batch is signed by the service only)');
  } else {
    w.text('Not yet anchored when this report was issued: completed verifications are sealed in batches every few minutes.', { size: 9.5 });
  }
  w.fact('Audit bundle (SHA-256)', content.auditBundleSha256);
  w.text('The SHA-256 of the canonical JSON of the verification’s audit bundle when this report was issued; check the bundle with `photoverify audit verify`.', { size: 9, color: MUTED });

  w.heading('This document');
  w.text(`Issued ${timeText(content.issuedAt.toISOString())} and signed by ${serviceName} with its signing certificate. A PDF reader shows the signature; any change to the file makes it invalid.`, { size: 9.5 });

  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: `Verification report of ${report.short_code ? `REF: ${report.short_code}` : report.name}`,
    contactInfo: serviceName,
    name: serviceName,
    location: report.processing_region ?? '',
    signingTime: content.issuedAt,
  });
  // No object streams: the signature's dictionary must stay in plain bytes for its byte range to be filled.
  return doc.save({ useObjectStreams: false });
}
