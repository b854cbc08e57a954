import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { Call } from '../../core/principal.js';
import { escapeHtml } from '../../core/text/html.js';
import { mailButton, mailDocument, mailSmallPrint, queueMail } from '../mail/index.js';
import { accountDecider, accountStream, normaliseEmail, resetLinkNotFound } from './decider.js';
import { hashPassword } from './passwords.js';
import { findUser, findUserByEmail } from '../../../projections/accounts/index.js';

/**
 * Password reset by e-mail (issue 39, D-312). The link's token names its user and carries 256
 * random bits: `pvr_<user id, 32 hex>_<43 base64url>`. Only its SHA-256 is recorded
 * (PasswordResetRequested in the account's history); the token itself is only in the mail. It
 * works once, for RESET_LINK_TTL_MS, and only the latest requested; using it records
 * PasswordChanged, which ends every session and access token of the user (D-039, issue 36).
 * Unlike an invitation's, the token is random, not derived: a crash between the event and its
 * mail loses that mail, and the user asks again (the page says a link may take a minute).
 */
export const RESET_LINK_TTL_MS = 60 * 60_000;
export const RESET_TOKEN_PATTERN = /^pvr_([0-9a-f]{32})_[A-Za-z0-9_-]{43}$/;

const sha256 = (token: string) => crypto.createHash('sha256').update(token).digest('hex');
const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/**
 * Mails a reset link to the user of `email`, if there is one with a password (an invited user's
 * link is their invitation). Answers nothing either way, so the page says the same to everyone.
 * Limited per address and client, and per client, before anything is looked up.
 */
export async function requestPasswordReset(deps: AppDeps, call: Call, input: { email: string; resetPageUrl: string }): Promise<void> {
  const address = normaliseEmail(input.email);
  // A newsroom's people share one address: the client's limit is wider than one address's.
  await deps.clientResetLimiter.take(call.clientAddress, 'password reset requests');
  await deps.passwordResetLimiter.take(`${address}|${call.clientAddress}`, 'password reset requests');
  const user = await findUserByEmail(deps.knex, address);
  if (!user || user.password_hash === null) return;
  const token = `pvr_${user.id.replace(/-/g, '')}_${crypto.randomBytes(32).toString('base64url')}`;
  const context = commandContext(deps, call, { type: 'user', id: user.id, accountId: user.account_id });
  const expiresAt = new Date(context.now.getTime() + RESET_LINK_TTL_MS);
  const { events } = await execute(deps, call, accountStream(user.account_id), accountDecider, { type: 'RequestPasswordReset', user_id: user.id, token_sha256: sha256(token), expires_at: expiresAt, now: context.now }, context);
  const requested = events.find((e) => e.type === 'PasswordResetRequested');
  if (!requested) return;
  const link = `${input.resetPageUrl}/${token}`;
  const until = `${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const service = deps.config.SERVICE_NAME;
  const subject = `Reset your ${service} password`;
  const lines = [
    `Someone (we hope you) asked to reset the password of ${user.email} on ${service}.`,
    `The link works once, until ${until}. Choosing a new password signs you out everywhere.`,
    'If you did not ask for it, ignore this message: your password stays as it is.',
  ];
  await queueMail(deps, context, {
    // One message per request: the token's digest names it (never the token).
    id: `password-reset-${sha256(token).slice(0, 32)}`,
    to: user.email,
    subject,
    text: [lines[0], '', `Choose a new password: ${link}`, '', lines[1], '', lines[2], '', service].join('\n'),
    html: mailDocument(subject, [
      `<p>${escapeHtml(lines[0]!)}</p>`,
      mailButton(link, 'Choose a new password'),
      `<p>${escapeHtml(lines[1]!)}</p>`,
      mailSmallPrint(lines[2]!),
    ]),
    accountId: user.account_id,
  });
}

/** Whether `token` could be a reset link's (its shape only: resetPassword checks it). */
export const isResetToken = (token: string): boolean => RESET_TOKEN_PATTERN.test(token);

/**
 * Sets the password of the link's user: RESET_LINK_NOT_FOUND for an unknown, used or replaced
 * link (or a removed user), RESET_LINK_EXPIRED past its hour. Ends every session of the user.
 * Returns the user's address, for the sign-in page that follows.
 */
export async function resetPassword(deps: AppDeps, call: Call, input: { token: string; password: string }): Promise<{ email: string }> {
  const userHex = RESET_TOKEN_PATTERN.exec(input.token)?.[1];
  const user = userHex ? await findUser(deps.knex, uuidOf(userHex)) : undefined;
  if (!user) throw resetLinkNotFound();
  const passwordHash = await hashPassword(input.password, deps.config.PASSWORD_HASH_COST);
  const context = commandContext(deps, call, { type: 'user', id: user.id, accountId: user.account_id });
  await execute(deps, call, accountStream(user.account_id), accountDecider, { type: 'ResetPassword', user_id: user.id, token_sha256: sha256(input.token), password_hash: passwordHash, now: context.now }, context);
  return { email: user.email };
}
