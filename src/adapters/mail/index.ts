import path from 'node:path';
import type { Config } from '../../core/config.js';
import type { Mailer } from '../../core/mail.js';
import { OutboxMailer } from './outbox.js';
import { SmtpMailer } from './smtp.js';

/** SMTP when `SMTP_URL` is set; otherwise the file outbox under `DATA_DIR/outbox`. */
export function createMailer(config: Pick<Config, 'SMTP_URL' | 'DATA_DIR'>): Mailer {
  return config.SMTP_URL ? new SmtpMailer(config.SMTP_URL) : new OutboxMailer(outboxDir(config.DATA_DIR));
}

export const outboxDir = (dataDir: string): string => path.join(dataDir, 'outbox');
