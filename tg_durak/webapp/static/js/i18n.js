// The page's texts. Everything comes from the welcome frame's `strings`, except the three texts
// needed before it arrives (copied verbatim from the four catalogs).

const BUILTIN = {
  en: {"app.connecting": "Connecting…", "app.reconnecting": "The connection dropped. Reconnecting…", "app.no_launch": "Open this table from Telegram: the 🃏 Table button in the bot's chat."},
  ru: {"app.connecting": "Подключаюсь…", "app.reconnecting": "Связь прервалась. Подключаюсь снова…", "app.no_launch": "Открой этот стол из Telegram: кнопка 🃏 Стол в чате с ботом."},
  uk: {"app.connecting": "Підключаюся…", "app.reconnecting": "Зв’язок урвався. Підключаюся знову…", "app.no_launch": "Відкрий цей стіл з Telegram: кнопка 🃏 Стіл у чаті з ботом."},
  pl: {"app.connecting": "Łączę…", "app.reconnecting": "Połączenie zerwane. Łączę ponownie…", "app.no_launch": "Otwórz ten stół z Telegrama: przycisk 🃏 Stół w czacie z botem."},
};

const SUIT_SYMBOLS = { s: '♠', h: '♥', d: '♦', c: '♣' };
const RANK_VALUES = { J: 11, Q: 12, K: 13, A: 14 };

let language = 'en';
let strings = {};
let ranks = {};

export function chooseLanguage(languageCode) {
  const base = String(languageCode || '').toLowerCase().split(/[-_]/)[0];
  language = base in BUILTIN ? base : 'en';
  document.documentElement.lang = language;
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
  const text = strings[key] ?? BUILTIN[language][key] ?? '';
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
