import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';

/** Every message the service wrote to its file outbox (DATA_DIR/outbox, the `file` mail transport), parsed. */
export async function outbox(dataDir: string): Promise<ParsedMail[]> {
  const dir = path.join(dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.eml'));
  return Promise.all(files.map((f) => simpleParser(fs.readFileSync(path.join(dir, f)))));
}

/** A message's first recipient, as its To header writes it. */
export const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text;
