// The one WebSocket to the bot: hello first, then frames both ways. A ping goes up every second
// and the server answers at once, so a few seconds of silence mean the network is gone (a socket
// whose network vanished may take minutes to close). Then the socket is dropped, and a new one
// comes back with a growing pause (at once when the browser says it is online again); the server
// then sends the whole state again. Nothing is ever queued for a later socket.
import { CLOSE_NO_TABLE, CLOSE_REFUSED, DOWN, UP } from './protocol.js';

const FINAL_CLOSE_CODES = new Set([CLOSE_REFUSED, CLOSE_NO_TABLE]);
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 8000;
const PING_EVERY_MS = 1000;
const CHECK_EVERY_MS = 250;
const SILENCE_MS = 2500;   // nothing heard this long, with a ping unanswered: offline (3 s at worst)
const HELLO_WAIT_MS = 8000;   // a socket not welcomed by then is stuck on a dead network
const GONE = 4000;   // the close code of a socket the page gave up on

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
    this.retry = 0;
    this.heard = 0;        // when a frame last came (performance.now())
    this.unanswered = 0;   // when the oldest ping not answered yet went up; 0: none
    this.pinged = 0;
    setInterval(() => this.check(), CHECK_EVERY_MS);
    window.addEventListener('offline', () => this.lost());
    window.addEventListener('online', () => this.again());
  }

  start() {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = 0;
    const socket = new WebSocket(socketUrl());
    this.socket = socket;
    this.welcomed = false;
    this.heard = performance.now();
    this.unanswered = 0;
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify({ type: UP.HELLO, init_data: this.initData }));
    });
    socket.addEventListener('message', (event) => {
      if (socket === this.socket) this.receive(event.data);
    });
    socket.addEventListener('close', (event) => this.closed(socket, event.code));
  }

  receive(data) {
    this.heard = performance.now();
    this.unanswered = 0;
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (frame.type === DOWN.PONG) return;
    if (frame.type === DOWN.WELCOME) {
      this.welcomed = true;
      this.pause = FIRST_PAUSE_MS;
    }
    if (frame.type === DOWN.ERROR) this.lastError = frame;
    this.handlers.onFrame(frame);
  }

  // Pings while welcomed; silence past the limit drops the socket.
  check() {
    if (!this.socket) return;
    const now = performance.now();
    const silent = now - this.heard;
    if (!this.welcomed) {
      if (silent > HELLO_WAIT_MS) this.lost();
      return;
    }
    // a page the phone put to sleep sent no pings: its silence proves nothing
    if (this.unanswered && now - this.unanswered > PING_EVERY_MS && silent > SILENCE_MS) {
      this.lost();
      return;
    }
    if (now - this.pinged >= PING_EVERY_MS) {
      this.pinged = now;
      if (!this.unanswered) this.unanswered = now;
      this.send({ type: UP.PING });
    }
  }

  // The network is gone: the socket is given up now, not when the browser notices.
  lost() {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    socket.close(GONE);
    this.dropped();
  }

  closed(socket, code) {
    if (socket !== this.socket) return;
    this.socket = null;
    if (FINAL_CLOSE_CODES.has(code)) {
      this.stopped = true;
      this.handlers.onFinal(code, this.lastError);
      return;
    }
    this.dropped();
  }

  dropped() {
    this.welcomed = false;
    this.handlers.onDrop();
    const jitter = 0.85 + Math.random() * 0.3;
    this.retry = setTimeout(() => this.start(), this.pause * jitter);
    this.pause = Math.min(this.pause * 2, LONGEST_PAUSE_MS);
  }

  // The browser says the network is back: no need to wait out the pause.
  again() {
    if (this.stopped || this.socket || !this.retry) return;
    this.pause = FIRST_PAUSE_MS;
    this.start();
  }

  // False when there is no open, welcomed socket: the frame is not queued for later.
  send(frame) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || !this.welcomed) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }
}
