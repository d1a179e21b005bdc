// Cards: their codes read and named, their faces and backs drawn as SVG: crisp at any size,
// coloured from CSS (currentColor and the classes in app.css), so a theme or the four-colour
// option restyles them without new drawings.
import { rankLabel } from './i18n.js';

const SUIT_SYMBOLS = { s: '♠', h: '♥', d: '♦', c: '♣' };
const RANK_VALUES = { J: 11, Q: 12, K: 13, A: 14 };

// A card's code, `<rank><suit>` ("10h", "Qs"), as its suit letter and rank value (J 11 … A 14).
export function parseCard(code) {
  const suit = code.slice(-1);
  const rankText = code.slice(0, -1);
  const value = RANK_VALUES[rankText] ?? Number(rankText);
  return { code, suit, value };
}

export function suitSymbol(suit) {
  return SUIT_SYMBOLS[suit] ?? '';
}

// The accessible name of a card: "10♥", "Q♠" (in Russian "Д♠").
export function cardLabel(code) {
  const { suit, value } = parseCard(code);
  return rankLabel(value) + suitSymbol(suit);
}

const NS = 'http://www.w3.org/2000/svg';
const W = 250;
const H = 350;

// Suits in a 100×100 box.
const SUIT_PATHS = {
  h: 'M50 90C36 76 4 56 4 30C4 14 16 4 29 4C39 4 46 10 50 19C54 10 61 4 71 4C84 4 96 14 96 30C96 56 64 76 50 90Z',
  d: 'M50 3C60 20 74 36 88 50C74 64 60 80 50 97C40 80 26 64 12 50C26 36 40 20 50 3Z',
  s: 'M50 4C60 22 96 40 96 64C96 79 85 87 73 87C64 87 57 82 54 76C55 86 59 92 67 97H33C41 92 45 86 46 76C43 82 36 87 27 87C15 87 4 79 4 64C4 40 40 22 50 4Z',
  c: 'M50 4A21 21 0 0 1 67 38A21 21 0 1 1 57 73C58 84 61 91 68 97H32C39 91 42 84 43 73A21 21 0 1 1 33 38A21 21 0 0 1 50 4Z',
};

// Pip centres for 2–10: columns and rows of the classic layouts.
const L = 84;
const M = 125;
const R = 166;
const TOP = 82;
const BOTTOM = 268;
const MID = 175;
const Q1 = TOP + (BOTTOM - TOP) / 3;
const Q3 = TOP + (2 * (BOTTOM - TOP)) / 3;
const PIPS = {
  2: [[M, TOP], [M, BOTTOM]],
  3: [[M, TOP], [M, MID], [M, BOTTOM]],
  4: [[L, TOP], [R, TOP], [L, BOTTOM], [R, BOTTOM]],
  5: [[L, TOP], [R, TOP], [M, MID], [L, BOTTOM], [R, BOTTOM]],
  6: [[L, TOP], [R, TOP], [L, MID], [R, MID], [L, BOTTOM], [R, BOTTOM]],
  7: [[L, TOP], [R, TOP], [M, (TOP + MID) / 2], [L, MID], [R, MID], [L, BOTTOM], [R, BOTTOM]],
  8: [[L, TOP], [R, TOP], [M, (TOP + MID) / 2], [L, MID], [R, MID], [M, (MID + BOTTOM) / 2],
    [L, BOTTOM], [R, BOTTOM]],
  9: [[L, TOP], [R, TOP], [L, Q1], [R, Q1], [M, MID], [L, Q3], [R, Q3], [L, BOTTOM], [R, BOTTOM]],
  10: [[L, TOP], [R, TOP], [M, (TOP + Q1) / 2], [L, Q1], [R, Q1], [L, Q3], [R, Q3],
    [M, (Q3 + BOTTOM) / 2], [L, BOTTOM], [R, BOTTOM]],
};
const PIP_SIZE = 46;

// The court cards' emblems in a 100×60 box: a king's crown, a queen's tiara, a jack's plumed cap.
const EMBLEMS = {
  13: [
    'M8 56V18L29 36L50 6L71 36L92 18V56Z',
    'M8 48H92',
  ],
  12: [
    'M10 56C10 38 16 28 24 26C30 40 40 42 50 16C60 42 70 40 76 26C84 28 90 38 90 56Z',
    'M10 48H90',
  ],
  11: [
    'M12 56C12 36 28 24 50 24C72 24 88 36 88 56Z',
    'M56 26C66 8 82 2 96 4C86 12 76 20 66 30Z',
    'M12 48H88',
  ],
};
const EMBLEM_JEWELS = {
  13: [[8, 16], [50, 5], [92, 16]],
  12: [[24, 23], [50, 13], [76, 23]],
  11: [[96, 4]],
};

function make(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function pip(parent, suit, cx, cy, size, flipped = false) {
  const use = make('use', {
    href: `#suit-${suit}`, x: cx - size / 2, y: cy - size / 2, width: size, height: size,
    fill: 'currentColor',
  }, parent);
  if (flipped) use.setAttribute('transform', `rotate(180 ${cx} ${cy})`);
  return use;
}

// The hidden sprite every card refers to: the four suits and the back's pattern.
export function installSprite() {
  const svg = make('svg', { class: 'sprite', 'aria-hidden': 'true', focusable: 'false' });
  const defs = make('defs', {}, svg);
  for (const [suit, d] of Object.entries(SUIT_PATHS)) {
    const symbol = make('symbol', { id: `suit-${suit}`, viewBox: '0 0 100 100' }, defs);
    make('path', { d }, symbol);
  }
  const pattern = make('pattern', {
    id: 'card-back-pattern', width: 24, height: 24, patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  }, defs);
  make('rect', { width: 24, height: 24, class: 'back-fill' }, pattern);
  make('path', { d: 'M0 12H24M12 0V24', class: 'back-line' }, pattern);
  make('circle', { cx: 12, cy: 12, r: 3, class: 'back-dot' }, pattern);
  document.body.prepend(svg);
}

// A rank's label centred at (x, y); a two-letter one ("10") squeezed into `width`.
function rankText(parent, value, x, y, className, width) {
  const label = rankLabel(value);
  const text = make('text', { x, y, class: className, 'text-anchor': 'middle' }, parent);
  text.textContent = label;
  if (label.length > 1) {
    text.setAttribute('textLength', width);
    text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
  }
}

function cornerIndex(parent, suit, value) {
  rankText(parent, value, 33, 64, 'index', 58);
  pip(parent, suit, 33, 92, 40);
}

function courtFigure(svg, suit, value) {
  make('rect', { x: 64, y: 26, width: 122, height: 298, rx: 12, class: 'court-frame' }, svg);
  const emblem = make('g', { transform: 'translate(75 44)', class: 'emblem' }, svg);
  const [outline, ...lines] = EMBLEMS[value];
  make('path', { d: outline, class: 'emblem-fill' }, emblem);
  for (const d of lines) make('path', { d, class: 'emblem-line' }, emblem);
  for (const [cx, cy] of EMBLEM_JEWELS[value]) make('circle', { cx, cy, r: 6, class: 'emblem-jewel' }, emblem);
  const letter = make('text', { x: 125, y: 212, class: 'court-letter', 'text-anchor': 'middle' }, svg);
  letter.textContent = rankLabel(value);
  pip(svg, suit, 125, 272, 56);
}

function cardSvg(extraClass) {
  return make('svg', {
    viewBox: `0 0 ${W} ${H}`, class: `card-svg ${extraClass}`, 'aria-hidden': 'true', focusable: 'false',
  });
}

export function faceSvg(code) {
  const { suit, value } = parseCard(code);
  const svg = cardSvg(`face suit-${suit}`);
  make('rect', { x: 2, y: 2, width: W - 4, height: H - 4, rx: 16, class: 'face-bg' }, svg);
  cornerIndex(svg, suit, value);
  cornerIndex(make('g', { transform: `rotate(180 ${W / 2} ${H / 2})` }, svg), suit, value);
  if (value === 14) {
    make('circle', { cx: M, cy: MID, r: 70, class: 'ace-ring' }, svg);
    pip(svg, suit, M, MID, 104);
  } else if (value >= 11) {
    courtFigure(svg, suit, value);
  } else {
    for (const [cx, cy] of PIPS[value] ?? []) pip(svg, suit, cx, cy, PIP_SIZE, cy > MID);
  }
  return svg;
}

// The trump card as it lies, crosswise under the stock: a landscape face whose right end (the
// part the stock leaves bare) carries its rank and suit upright, so it reads at a glance.
export function trumpSvg(code) {
  const { suit, value } = parseCard(code);
  const svg = make('svg', {
    viewBox: `0 0 ${H} ${W}`, class: `card-svg face suit-${suit}`, 'aria-hidden': 'true', focusable: 'false',
  });
  make('rect', { x: 2, y: 2, width: H - 4, height: W - 4, rx: 16, class: 'face-bg' }, svg);
  pip(svg, suit, 105, W / 2, 120);
  rankText(svg, value, 268, 120, 'trump-index', 140);
  pip(svg, suit, 268, 178, 84);
  return svg;
}

export function backSvg() {
  const svg = cardSvg('back');
  make('rect', { x: 2, y: 2, width: W - 4, height: H - 4, rx: 16, class: 'back-bg' }, svg);
  make('rect', { x: 16, y: 16, width: W - 32, height: H - 32, rx: 10, fill: 'url(#card-back-pattern)', class: 'back-frame' }, svg);
  make('circle', { cx: W / 2, cy: H / 2, r: 40, class: 'back-emblem' }, svg);
  make('path', { d: `M${W / 2} ${H / 2 - 26}L${W / 2 + 18} ${H / 2}L${W / 2} ${H / 2 + 26}L${W / 2 - 18} ${H / 2}Z`, class: 'back-emblem-mark' }, svg);
  return svg;
}

// A small suit drawing for labels (the trump when the stock is gone, the colour toggle).
export function suitSvg(suit) {
  const svg = make('svg', { viewBox: '0 0 100 100', class: `suit-svg suit-${suit}`, 'aria-hidden': 'true', focusable: 'false' });
  make('use', { href: `#suit-${suit}`, width: 100, height: 100, fill: 'currentColor' }, svg);
  return svg;
}
