import type { AccessType } from './events.js';
import { escapeHtml } from '../../core/text/html.js';
import { mailButton, mailDocument, mailSmallPrint } from '../mail/index.js';

/**
 * The sharing notifications (spec 6: the link, who shared it, the verification date and basic
 * details), as plain text and HTML. Pure: the use cases gather the facts and queue the result.
 */
export interface ShareMailFacts {
  serviceName: string;
  /** Who shared it: the acting user's name and account name. */
  sharerName: string;
  accountName: string;
  recipient: string;
  /** The recipient's personal link (share URL plus invitation proof). */
  link: string;
  accessType: AccessType;
  verification: {
    name: string;
    shortCode: string;
    createdAt: Date;
    mode: 'raw_pair' | 'image_only';
    status: string;
    assuranceLevel: string | null;
    verdict: string | null;
  };
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const LEVELS: Record<string, string> = {
  verified: 'Verified: the photo is a faithful rendering of its camera RAW',
  provisional: 'Provisional: the photo corresponds to its camera RAW, with reservations',
  provenance: 'Provenance: the photo carries valid Content Credentials',
  unrated: 'Unrated: the evidence does not allow a rating',
  flagged: 'Flagged: the evidence contradicts the claimed origin',
};

const MODES = { raw_pair: 'photo checked against its camera RAW', image_only: 'Content Credentials of the image' } as const;

export function outcomeInWords(v: ShareMailFacts['verification']): string {
  if (v.status === 'failed') return 'The verification could not be completed';
  if (v.status !== 'completed' || !v.assuranceLevel) return 'In progress';
  const level = LEVELS[v.assuranceLevel] ?? v.assuranceLevel;
  return v.verdict && v.verdict !== 'unrated' ? `${level} (verdict: ${v.verdict.replaceAll('_', ' ')})` : level;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

function details(f: ShareMailFacts): [string, string][] {
  return [
    ['Photo', f.verification.name],
    ['Verification date', `${day(f.verification.createdAt)} (UTC)`],
    ['Checked', MODES[f.verification.mode]],
    ['Result', outcomeInWords(f.verification)],
    ['Reference', f.verification.shortCode],
  ];
}


function render(f: ShareMailFacts, subject: string, lead: string, access: string): RenderedMail {
  const rows = details(f);
  const note = 'This link is personal: it opens the report as ' + f.recipient + '. Please do not forward it.';
  const text = [
    lead,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    access,
    '',
    `Open the report: ${f.link}`,
    '',
    note,
    '',
    `${f.serviceName}`,
  ].join('\n');
  const html = mailDocument(subject, [
    `<p>${escapeHtml(lead)}</p>`,
    '<table role="presentation" style="border-collapse: collapse;">',
    rows.map(([k, v]) => `<tr><th scope="row" style="text-align: left; padding: 0.2rem 1rem 0.2rem 0;">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('\n'),
    '</table>',
    `<p>${escapeHtml(access)}</p>`,
    mailButton(f.link, 'Open the report'),
    mailSmallPrint(`Or copy this address: ${f.link}`),
    mailSmallPrint(note),
    mailSmallPrint(f.serviceName),
  ]);
  return { subject, text, html };
}

const sharer = (f: ShareMailFacts) => `${f.sharerName} (${f.accountName})`;

/** To an address just invited to a restricted share. */
export function invitationMail(f: ShareMailFacts): RenderedMail {
  return render(
    f,
    `${f.sharerName} shared a photo verification with you: ${f.verification.name}`,
    `${sharer(f)} shared the ${f.serviceName} verification report of "${f.verification.name}" with you.`,
    'Only invited addresses can open this report.',
  );
}

/** To the invited addresses when the share's access type is set (spec 4.1: "Invited users are notified by e-mail"). */
export function accessChangedMail(f: ShareMailFacts): RenderedMail {
  return render(
    f,
    `${f.sharerName} changed the sharing of a photo verification: ${f.verification.name}`,
    `${sharer(f)} changed who can open the ${f.serviceName} verification report of "${f.verification.name}" that was shared with you.`,
    f.accessType === 'anyone_with_link' ? 'Anyone with the link can now open this report.' : 'Only invited addresses can now open this report; you are one of them.',
  );
}
