/**
 * The requester's e-mail about one submission through a request's link (issue 24, must-work 3),
 * as plain text and HTML. Pure: submission-mail.ts gathers the facts from the recorded events.
 *
 * The subject carries only the requester's own words (the request's subject) and the service's:
 * the provider controls the file name, so it appears in the body only, escaped, and labelled as
 * the provider's. No link carries a credential: the verification and the request are links to
 * the API the requester reads with their own credentials, never the provider page's token.
 */
export interface SubmissionMailFacts {
  serviceName: string;
  publicBaseUrl: string;
  requestId: string;
  /** The request's subject (the requester's words). */
  subject: string;
  /** The submission's number among the request's counted submissions, and the cap. */
  submissionCount: number;
  maxSubmissions: number;
  verificationId: string;
  shortCode: string;
  mode: 'raw_pair' | 'image_only';
  /** The image's file name as the provider sent it (cleaned when stored). */
  fileName: string;
  receivedAt: Date;
}

export interface RenderedSubmissionMail {
  subject: string;
  text: string;
  html: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const MODES = { raw_pair: 'a photo with its camera RAW', image_only: 'a photo without a RAW (its Content Credentials are checked)' } as const;

/** A subject's words cut to fit a mail subject line (the request's subject may be 200 characters), never inside a surrogate pair. */
function shortened(subject: string, max = 120): string {
  if (subject.length <= max) return subject;
  const cut = subject.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

export function submissionMail(f: SubmissionMailFacts): RenderedSubmissionMail {
  const subject = `New submission to your request: ${shortened(f.subject)}`;
  const verificationUrl = `${f.publicBaseUrl}/v1/verifications/${f.verificationId}`;
  const listUrl = `${f.publicBaseUrl}/v1/verifications/?request_id=${f.requestId}`;
  const requestUrl = `${f.publicBaseUrl}/v1/requests/${f.requestId}`;
  const lead = `A provider submitted ${MODES[f.mode]} to your ${f.serviceName} verification request "${f.subject}". Its verification has started.`;
  const rows: [string, string][] = [
    ['Request', f.subject],
    ['Submission', `${f.submissionCount} of at most ${f.maxSubmissions}`],
    ['Received', `${f.receivedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`],
    ['Verification id', f.verificationId],
    ['Reference', f.shortCode],
    ['File name (as sent by the provider)', f.fileName],
  ];
  const api = 'These addresses are the API: open them with your API key or signed-in session (GET). The verification shows its status and, once completed, its result.';
  const text = [
    lead,
    '',
    ...rows.map(([k, v]) => `${k}: ${v}`),
    '',
    `The verification: ${verificationUrl}`,
    `All submissions to this request: ${listUrl}`,
    `The request: ${requestUrl}`,
    '',
    api,
    '',
    f.serviceName,
  ].join('\n');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 36rem;">
<p>${escape(lead)}</p>
<table role="presentation" style="border-collapse: collapse;">
${rows.map(([k, v]) => `<tr><th scope="row" style="text-align: left; padding: 0.2rem 1rem 0.2rem 0;">${escape(k)}</th><td><bdi>${escape(v)}</bdi></td></tr>`).join('\n')}
</table>
<ul>
<li>The verification: <a href="${escape(verificationUrl)}">${escape(verificationUrl)}</a></li>
<li>All submissions to this request: <a href="${escape(listUrl)}">${escape(listUrl)}</a></li>
<li>The request: <a href="${escape(requestUrl)}">${escape(requestUrl)}</a></li>
</ul>
<p style="font-size: 0.9em; color: #555;">${escape(api)}</p>
<p style="font-size: 0.9em; color: #555;">${escape(f.serviceName)}</p>
</body></html>
`;
  return { subject, text, html };
}
