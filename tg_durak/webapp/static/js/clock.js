// The turn clock and the throw-in window as bars, drawn from the server's deadlines against the
// page's clock corrected by the server's `now`. Nothing is ever sent for a bar.

let offset = 0; // server time minus page time, ms
let bars = [];  // {fill, due, total}
let frame = 0;

export function syncClock(serverNow) {
  if (typeof serverNow === 'number') offset = serverNow - Date.now();
}

function serverTime() {
  return Date.now() + offset;
}

function draw() {
  frame = 0;
  const now = serverTime();
  for (const bar of bars) {
    const left = Math.max(0, bar.due - now);
    const share = bar.total > 0 ? Math.min(1, left / bar.total) : 0;
    bar.fill.style.transform = `scaleX(${share.toFixed(4)})`;
    bar.fill.classList.toggle('low', share < 0.25);
  }
  if (bars.some((bar) => bar.due > now)) frame = requestAnimationFrame(draw);
}

// bar: the element holding a `.bar-fill`; deadline: {due, total} or null to hide it.
export function setBars(list) {
  bars = [];
  for (const { element, deadline } of list) {
    const show = Boolean(deadline && typeof deadline.due === 'number');
    element.hidden = !show;
    if (!show) continue;
    const total = deadline.total || Math.max(1, deadline.due - serverTime());
    bars.push({ fill: element.querySelector('.bar-fill'), due: deadline.due, total });
    element.classList.toggle('closing', Boolean(deadline.closing));
  }
  if (frame) cancelAnimationFrame(frame);
  draw();
}
