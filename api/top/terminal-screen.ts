// The live screen of `fairway top` on a terminal, as top(1) draws it: the alternate screen (so the
// shell's scrollback is untouched), each frame drawn from the cursor's home position over the last
// one (no flicker of a cleared screen), the cursor hidden, and keys read one by one without echo.
// Whatever ends the program — `q`, Ctrl-C, SIGINT, SIGTERM, an error — gives the terminal back as
// it was: main screen, cursor shown, cooked mode. A resize redraws at the new size at once.

import type { ReadStream, WriteStream } from 'node:tty';

const ENTER_ALTERNATE = '\x1b[?1049h\x1b[?25l';
const LEAVE_ALTERNATE = '\x1b[?25h\x1b[?1049l';
const HOME = '\x1b[H';
const CLEAR_TO_LINE_END = '\x1b[K';
const CLEAR_TO_SCREEN_END = '\x1b[J';
const CTRL_C = '\x03';

export interface TerminalScreen {
  readonly width: number;
  readonly height: number;
  /** Draws a frame; each line must already fit the width. */
  draw(lines: readonly string[]): void;
  /** Gives the terminal back; safe to call twice. */
  close(): void;
}

export interface ScreenEvents {
  onKey(key: string): void;
  onResize(): void;
  /** Ctrl-C, SIGINT or SIGTERM: the screen is already closed. */
  onInterrupt(): void;
}

export function openTerminalScreen(input: ReadStream, output: WriteStream, events: ScreenEvents): TerminalScreen {
  let closed = false;
  output.write(ENTER_ALTERNATE);
  input.setRawMode(true);
  input.setEncoding('utf8');
  const onData = (data: string) => {
    for (const key of data) {
      if (key === CTRL_C) {
        screen.close();
        events.onInterrupt();
        return;
      }
      events.onKey(key);
    }
  };
  const onSignal = () => {
    screen.close();
    events.onInterrupt();
  };
  const onResize = () => events.onResize();
  input.on('data', onData);
  input.resume();
  output.on('resize', onResize);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A crash must not leave the terminal in raw mode on the alternate screen.
  const onExit = () => screen.close();
  process.on('exit', onExit);
  const screen: TerminalScreen = {
    get width() {
      return output.columns || 80;
    },
    get height() {
      return output.rows || 24;
    },
    draw(lines) {
      if (closed) return;
      output.write(`${HOME}${lines.map((line) => `${line}${CLEAR_TO_LINE_END}`).join('\r\n')}${CLEAR_TO_SCREEN_END}`);
    },
    close() {
      if (closed) return;
      closed = true;
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.off('resize', onResize);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('exit', onExit);
      output.write(LEAVE_ALTERNATE);
    },
  };
  return screen;
}
