/**
 * Progress on stderr while `photoverify verify` waits. stdout stays clean for the result (and
 * for --json piped into jq). On a terminal a live line is redrawn in place: a spinner, a bar of
 * the stages passed (the service reports a stage, not a percentage) and the time; in a log or CI
 * there are only whole lines: one per status change, and a "still waiting" line once a minute.
 */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const STAGES = ['uploading', 'pending', 'queued', 'in_progress', 'completed'];

/** `[██░░░]`: the stages reached so far (completed or failed: all of them). */
export function stageBar(state: string): string {
  const reached = state === 'failed' ? STAGES.length : STAGES.indexOf(state) + 1;
  return `[${'█'.repeat(reached)}${'░'.repeat(STAGES.length - reached)}]`;
}
const HEARTBEAT_MS = 60_000;

export function formatElapsed(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

export class Progress {
  private readonly tty: boolean;
  private readonly started = Date.now();
  private state = '';
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastLine = Date.now();

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {
    this.tty = Boolean(out.isTTY);
  }

  /** A one-off line (upload started, id created, a retried error). */
  note(message: string): void {
    this.clear();
    this.out.write(`[${formatElapsed(Date.now() - this.started).padStart(6)}] ${message}\n`);
    this.lastLine = Date.now();
    this.draw();
  }

  /** The current phase: printed when it changes (unless already announced); the spinner shows it meanwhile. */
  status(state: string, announce = true): void {
    if (state !== this.state) {
      this.state = state;
      if (announce) this.note(state);
    } else if (!this.tty && Date.now() - this.lastLine >= HEARTBEAT_MS) {
      this.note(`still ${state}`);
    }
    if (this.tty && !this.timer) {
      this.timer = setInterval(() => this.draw(), 100);
      this.timer.unref(); // never keeps the process alive on its own
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  private draw(): void {
    if (!this.tty || !this.timer) return;
    this.frame = (this.frame + 1) % FRAMES.length;
    this.out.write(`\r${FRAMES[this.frame]} ${stageBar(this.state)} ${this.state} ${formatElapsed(Date.now() - this.started)}\x1b[K`);
  }

  private clear(): void {
    if (this.tty && this.timer) this.out.write('\r\x1b[K');
  }
}
