// The page's texts. Everything comes from the welcome frame's `strings`, but the few texts
// needed before it arrives, which the server gives for the launch's language (`texts/<lang>`).

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

// A key missing from the catalog shows nothing rather than the key itself.
export function t(key, params = {}) {
  const text = strings[key] ?? early[key] ?? '';
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// The rank as the player's language writes it on a card: 10, or Д for a queen in Russian.
export function rankLabel(value) {
  return value >= 11 ? ranks[String(value)] ?? '' : String(value);
}

// The server's texts are the chat's, where a suit is written with U+FE0F (emoji presentation,
// as Telegram shows it). On the page an emoji suit is larger than the text around it and
// unlike the suits on the cards: the suits are shown as text here.
export function asText(line) {
  return String(line ?? '').replace(/([♠♣♥♦])\uFE0F/g, '$1');
}
