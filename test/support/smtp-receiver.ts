import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  raw: Buffer;
  parsed: ParsedMail;
  messageId: string;
  envelopeTo: string[];
}

/** An SMTP reply refusing a command. */
export interface Refusal {
  code: number;
  message: string;
}

/**
 * What the receiver does; `n` counts calls of that stage from 1 (every attempt of every message).
 * A refusal answers the command with its code; a hook's promise delays the reply.
 */
export interface ReceiverBehaviour {
  rcpt?: (n: number, address: string) => Refusal | undefined | Promise<Refusal | undefined>;
  /** After the whole message arrived (the end of DATA): a refusal rejects it (not received). */
  data?: (n: number) => Refusal | undefined | Promise<Refusal | undefined>;
  /** After a message was accepted and kept (received), before the 250 reply is sent. */
  beforeReply?: (n: number) => Promise<void>;
}

export interface SmtpReceiver {
  url: string;
  port: number;
  /** Messages accepted: the whole message arrived and was not refused. */
  messages: ReceivedMail[];
  /** RCPT TO commands seen (each attempt of each message). */
  rcptCount(): number;
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** An in-process SMTP server on 127.0.0.1:0 (no TLS, no auth) that keeps what it accepts, parsed. */
export async function startSmtpReceiver(behaviour: ReceiverBehaviour = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  let rcpts = 0;
  let datas = 0;
  const refusal = (r: Refusal) => Object.assign(new Error(r.message), { responseCode: r.code });
  /** The end of DATA: the message kept and the 250 reply's text, or rejected (a refusal, a message that does not parse). */
  const accept = async (n: number, raw: Buffer, envelopeTo: string[]): Promise<string> => {
    const refused = await behaviour.data?.(n);
    if (refused) throw refusal(refused);
    const parsed = await simpleParser(raw);
    messages.push({ raw, parsed, messageId: parsed.messageId ?? '', envelopeTo });
    await behaviour.beforeReply?.(n);
    return `OK queued as r${n}`;
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const n = ++rcpts;
      Promise.resolve(behaviour.rcpt?.(n, address.address)).then(
        (refused) => callback(refused ? refusal(refused) : null),
        (error: Error) => callback(error),
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const n = ++datas;
        accept(n, Buffer.concat(chunks), session.envelope.rcptTo.map((r) => r.address)).then(
          (queued) => callback(null, queued),
          (error: Error) => callback(error),
        );
      });
    },
  });
  // A client that dies mid-session (the crash tests kill it) resets its socket: expected here.
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    rcptCount: () => rcpts,
    async waitForMessages(count, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
