// Labels that must be read whole (a seat's name and role, the header, who played a table card):
// a label that does not fit its box gets a smaller font, down to a floor, and then more lines
// (broken at a space if it has one). Nothing is cut off with an ellipsis.

const STEP = 0.5;

function overflows(node) {
  return node.scrollWidth > node.clientWidth + 0.5;
}

// Each node's own font size (from app.css) is where it starts; `floor` is the smallest, in px.
export function fitText(nodes, floor) {
  for (const node of nodes) {
    node.style.fontSize = '';
    node.classList.remove('wrapped');
    if (!node.clientWidth || !overflows(node)) continue;
    // a text's width goes with its font size: one guess, then a step or two to be sure
    let size = parseFloat(getComputedStyle(node).fontSize);
    size = Math.max(floor, Math.floor((size * node.clientWidth) / node.scrollWidth / STEP) * STEP);
    node.style.fontSize = `${size}px`;
    while (overflows(node) && size - STEP >= floor) {
      size -= STEP;
      node.style.fontSize = `${size}px`;
    }
    if (overflows(node)) node.classList.add('wrapped');
  }
}
