// The page's texts. Everything comes from the welcome frame's `strings`, but the few texts
// needed before it arrives, which the server gives for the launch's language (`texts/<lang>`).

const SUIT_SYMBOLS = { s: '♠', h: '♥', d: '♦', c: '♣' };
const RANK_VALUES = { J: 11, Q: 12, K: 13, A: 14 };

let early = {};
let strings = {};
let ranks = {};

export async function chooseLanguage(languageCode) {
  const base = String(languageCode || '').toLowerCase().split(/[-_]/)[0] || 'en';
  try {
    const response = await fetch(`texts/${encodeURIComponent(base)}`);
    early = response.ok ? await response.json() : {};
  } catch {
    early = {};   // the server is out of reach: the socket's back-off will say so later
  }
}

export function setCatalog(newStrings, newRanks, locale) {
  strings = newStrings || {};
  ranks = newRanks || {};
  if (locale) document.documentElement.lang = locale;
}

export function hasCatalog() {
  return Object.keys(strings).length > 0;
}

// A key missing from the catalog shows nothing rather than the key itself.
export function t(key, params = {}) {
  const text = strings[key] ?? early[key] ?? '';
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export function parseCard(code) {
  const suit = code.slice(-1);
  const rankText = code.slice(0, -1);
  const value = RANK_VALUES[rankText] ?? Number(rankText);
  return { code, suit, value };
}

export function rankLabel(value) {
  return value >= 11 ? ranks[String(value)] ?? '' : String(value);
}

export function suitSymbol(suit) {
  return SUIT_SYMBOLS[suit] ?? '';
}

// The accessible name of a card: "10♥", "Q♠" (in Russian "Д♠").
export function cardLabel(code) {
  const { suit, value } = parseCard(code);
  return rankLabel(value) + suitSymbol(suit);
}

// The server's texts are the chat's, where a suit is written with U+FE0F (emoji presentation,
// as Telegram shows it). On the page an emoji suit is larger than the text around it and
// unlike the suits on the cards: the suits are shown as text here.
export function asText(line) {
  return String(line ?? '').replace(/([♠♣♥♦])\uFE0F/g, '$1');
}
