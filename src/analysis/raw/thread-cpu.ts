/**
 * Processor time of one thread of this process, read from Linux's /proc. The RAW decoder's
 * watchdog measures the decoder's own work with it, so a decode on a busy machine (waiting for
 * a core, not working) is not mistaken for a decode that cannot finish.
 */
import { readFileSync } from 'node:fs';

/** Linux reports utime/stime in USER_HZ ticks, 100 per second on every architecture Node runs on. */
const MS_PER_TICK = 10;

/** utime + stime of thread `tid` of this process in ms; undefined without /proc or once the thread is gone. */
export function threadCpuMs(tid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces and parentheses): state is field 3,
  // utime field 14 and stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * MS_PER_TICK : undefined;
}
