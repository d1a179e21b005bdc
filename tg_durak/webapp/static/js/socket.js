// The one WebSocket to the bot: hello first, then frames both ways; a dropped socket comes back
// with a growing pause, and the server then sends the whole state again.
import { CLOSE_NO_TABLE, CLOSE_REFUSED, DOWN, UP } from './protocol.js';

const FINAL_CLOSE_CODES = new Set([CLOSE_REFUSED, CLOSE_NO_TABLE]);
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 8000;

function socketUrl() {
  const url = new URL('ws', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.hash = '';
  url.search = '';
  return url.href;
}

export class Connection {
  // handlers: onFrame(frame), onDrop(), onFinal(code, lastError)
  constructor(initData, handlers) {
    this.initData = initData;
    this.handlers = handlers;
    this.socket = null;
    this.pause = FIRST_PAUSE_MS;
    this.stopped = false;
    this.lastError = null;
    this.welcomed = false;
  }

  start() {
    if (this.stopped) return;
    const socket = new WebSocket(socketUrl());
    this.socket = socket;
    this.welcomed = false;
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify({ type: UP.HELLO, init_data: this.initData }));
    });
    socket.addEventListener('message', (event) => this.receive(event.data));
    socket.addEventListener('close', (event) => this.closed(socket, event.code));
  }

  receive(data) {
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (frame.type === DOWN.WELCOME) {
      this.welcomed = true;
      this.pause = FIRST_PAUSE_MS;
    }
    if (frame.type === DOWN.ERROR) this.lastError = frame;
    this.handlers.onFrame(frame);
  }

  closed(socket, code) {
    if (socket !== this.socket) return;
    this.socket = null;
    if (FINAL_CLOSE_CODES.has(code)) {
      this.stopped = true;
      this.handlers.onFinal(code, this.lastError);
      return;
    }
    this.handlers.onDrop();
    const jitter = 0.85 + Math.random() * 0.3;
    setTimeout(() => this.start(), this.pause * jitter);
    this.pause = Math.min(this.pause * 2, LONGEST_PAUSE_MS);
  }

  // False when there is no open, welcomed socket: the frame is not queued for later.
  send(frame) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || !this.welcomed) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }
}
