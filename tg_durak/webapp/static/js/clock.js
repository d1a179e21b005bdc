// The turn clock and the throw-in window: bars with their seconds, drawn from the server's
// deadlines against the page's clock corrected by the server's `now`. Nothing is ever sent for a
// clock. Offline, the clocks stop where they are: what the server's clocks did meanwhile comes
// with its next state.

const LOW_SHARE = 0.25;

let offset = 0; // server time minus page time, ms
let clocks = [];
let frame = 0;

export function syncClock(serverNow) {
  if (typeof serverNow === 'number') offset = serverNow - Date.now();
}

function serverTime() {
  return Date.now() + offset;
}

function drawClock(clock, now) {
  const left = Math.max(0, clock.due - now);
  const share = Math.min(1, left / clock.total);
  clock.fill.style.transform = `scaleX(${share.toFixed(4)})`;
  clock.fill.classList.toggle('low', share < LOW_SHARE);
  const seconds = Math.ceil(left / 1000);
  if (clock.label) clock.label.textContent = clock.say(seconds);
  if (clock.onSeconds && seconds !== clock.seconds) clock.onSeconds(seconds);
  clock.seconds = seconds;
}

function draw() {
  frame = 0;
  const now = serverTime();
  for (const clock of clocks) drawClock(clock, now);
  if (clocks.some((clock) => clock.due > now)) frame = requestAnimationFrame(draw);
}

// Each of `list`: {element, deadline, say, onSeconds}. `element` holds a `.bar-fill` and may hold
// a `.clock-label`, which reads say(seconds left); `deadline` is {due, total, closing} or null to
// hide the clock; onSeconds(seconds) is told each new whole second left. `running`: false
// while the page is offline.
export function setClocks(list, running) {
  const now = serverTime();
  clocks = [];
  for (const { element, deadline, say = () => '', onSeconds = null } of list) {
    const show = Boolean(deadline && typeof deadline.due === 'number');
    element.hidden = !show;
    if (!show) continue;
    const total = deadline.total || Math.max(1, deadline.due - now);
    const clock = {
      fill: element.querySelector('.bar-fill'), label: element.querySelector('.clock-label'),
      due: deadline.due, total, say, onSeconds, seconds: null,
    };
    element.classList.toggle('closing', Boolean(deadline.closing));
    element.classList.toggle('stopped', !running);
    clocks.push(clock);
  }
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  if (running) draw();
  else for (const clock of clocks) drawClock({ ...clock, onSeconds: null }, now);
}
