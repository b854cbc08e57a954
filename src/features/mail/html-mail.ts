import { escapeHtml } from '../../core/text/html.js';

/**
 * The look every e-mail of the service shares: one HTML document, one button for its link and
 * smaller print for what follows. The text and attributes are escaped here; `body` lines are HTML.
 */
export function mailDocument(subject: string, body: string[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 36rem;">
${body.join('\n')}
</body></html>
`;
}

/** The mail's one action: its link as a button. */
export const mailButton = (href: string, label: string): string =>
  `<p><a href="${escapeHtml(href)}" style="display: inline-block; padding: 0.6rem 1rem; background: #1d4ed8; color: #fff; text-decoration: none; border-radius: 4px;">${escapeHtml(label)}</a></p>`;

/** A paragraph in smaller, greyer print (the link spelled out, a note, the service's name). */
export const mailSmallPrint = (text: string): string => `<p style="font-size: 0.9em; color: #555;">${escapeHtml(text)}</p>`;
