// The words the page and the server exchange (docs/mini-app.md), held to the server's own
// (webapp/frames.py) by tests/webapp/test_page_protocol.py, which reads this file.

// The socket is closed with these for good: the launch was refused, or it names no table.
export const CLOSE_REFUSED = 4401;
export const CLOSE_NO_TABLE = 4404;

// The frames the page sends up.
export const UP = Object.freeze({
  HELLO: 'hello',
  MOVE: 'move',
  JOIN: 'join',
  AGAIN: 'again',
  START: 'start',
  QUICK: 'quick',
  PING: 'ping',
});

// The frames the server sends down.
export const DOWN = Object.freeze({
  WELCOME: 'welcome',
  STATE: 'state',
  ANSWER: 'answer',
  ERROR: 'error',
  PONG: 'pong',
});
