// Server log lines on stderr in klog's one-line header form, so tools that read kube-apiserver logs
// read these too: `I1121 05:36:12.123456   12345 serve.ts] message`. Severity is I, W or E; the
// time is UTC; the number is the process id where klog prints the thread id.

export type Severity = 'I' | 'W' | 'E';

export interface Logger {
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
}

const two = (n: number) => String(n).padStart(2, '0');

/** The klog header for `nowMs` (epoch milliseconds). */
export function klogHeader(severity: Severity, nowMs: number, pid: number, source: string): string {
  const d = new Date(nowMs);
  const micros = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${micros}`;
  return `${severity}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())} ${time} ${String(pid).padStart(7)} ${source}]`;
}

/** A logger for one source file name; `write` defaults to stderr (tests pass a collector). */
export function createLogger(source: string, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  // Messages are kept to one line each: a newline inside would break line-oriented readers.
  const emit = (severity: Severity, message: string) => write(`${klogHeader(severity, Date.now(), process.pid, source)} ${message.replace(/\n/g, '\\n')}\n`);
  return {
    info: (message) => emit('I', message),
    warning: (message) => emit('W', message),
    error: (message) => emit('E', message),
  };
}

/** A logger that drops everything (in-process tests). */
export const silentLogger: Logger = { info: () => undefined, warning: () => undefined, error: () => undefined };
