// Building the page's parts from the emulator's JSON (client_views.py). No state lives here.

import { renderText } from "./text.js";

const AVATAR_COLOURS = ["#e17076", "#7bc862", "#65aadd", "#a695e7", "#ee7aae", "#6ec9cb",
  "#faa774"];

export function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

export function avatar(name, id, small = false) {
  const node = el("span", small ? "avatar small" : "avatar", (name.trim()[0] ?? "?").toUpperCase());
  node.style.background = AVATAR_COLOURS[Math.abs(id) % AVATAR_COLOURS.length];
  node.setAttribute("aria-hidden", "true");
  return node;
}

function clock(date) {
  const time = new Date(date * 1000);
  return `${String(time.getHours()).padStart(2, "0")}:${String(time.getMinutes()).padStart(2, "0")}`;
}

export function picker(people, bot) {
  const cards = people.map((person) => {
    const card = el("a", "person", avatar(person.name, person.id), el("span", "person-name", person.name));
    card.href = `?as=${encodeURIComponent(person.key)}`;
    return card;
  });
  return el("div", "picker",
    el("h1", null, "Telegram emulator"),
    el("p", "hint", `Chat with @${bot.username} as one of these people. Open another tab as `
      + "someone else to play a group game together."),
    el("nav", "people", ...cards));
}

function preview(chat) {
  const last = chat.messages[chat.messages.length - 1];
  if (!last) return chat.started ? "" : "Tap Start to begin";
  const text = last.service ?? last.text.split("\n")[0];
  return last.mine ? `You: ${text}` : text;
}

export function chatItem(chat, active, unread) {
  const item = el("button", `chat-item${active ? " active" : ""}`,
    avatar(chat.title, chat.avatar),
    el("span", "chat-item-text",
      el("span", "chat-item-title", chat.title),
      el("span", "chat-item-preview", preview(chat))),
    unread ? el("span", "unread", "•") : null);
  item.type = "button";
  item.dataset.chat = chat.id;
  if (active) item.setAttribute("aria-current", "true");
  return item;
}

function keyboard(rows) {
  // A row of many (a hand of cards) gives each label all the room there is.
  return el("div", "keyboard", ...rows.map((row, r) => el("div",
    row.length > 4 ? "keyboard-row dense" : "keyboard-row",
    ...row.map((button, c) => {
      const mark = { url: "↗", web_app: "⧉" }[button.kind];
      const node = el("button", `key key-${button.kind}`, el("span", null, button.text),
        mark ? el("span", "key-mark", mark) : null);
      node.type = "button";
      node.dataset.row = r;
      node.dataset.col = c;
      return node;
    }))));
}

export function messageItem(message, chat, byId) {
  if (message.service) return el("li", "service", el("span", null, message.service));
  const group = chat.type !== "private";
  const replied = message.reply_to ? byId.get(message.reply_to) : null;
  const bubble = el("div", "bubble",
    group && !message.mine ? el("span", "sender", message.from.name) : null,
    message.via ? el("span", "via", `via @${message.via}`) : null,
    replied ? el("span", "quote", el("b", null, replied.from.name),
      el("span", null, (replied.text ?? "").split("\n")[0])) : null,
    el("div", "text", renderText(message.text, message.entities)),
    el("span", "meta", message.edited ? "edited " : "", clock(message.date)));
  const withAvatar = group && !message.mine;
  const item = el("li", `message${message.mine ? " mine" : ""}${message.from.bot ? " bot" : ""}`
      + `${withAvatar ? " with-avatar" : ""}`,
    el("div", "message-row", withAvatar ? avatar(message.from.name, message.from.id, true) : null,
      bubble),
    message.buttons.length ? keyboard(message.buttons) : null);
  item.dataset.message = message.id;
  return item;
}

export function chatHead(chat) {
  return [avatar(chat.title, chat.avatar),
    el("span", "chat-head-text", el("span", "chat-head-title", chat.title),
      el("span", "chat-head-subtitle", chat.subtitle))];
}

// What typing @bot offers (inline mode): the bot's button above its results, then each result.
export function inlineResults(answer, onPick) {
  const items = answer.results.map((result) => {
    const item = el("button", "command-item", el("b", null, result.title),
      result.description ? el("span", null, result.description) : null);
    item.type = "button";
    item.addEventListener("click", () => onPick({ result: result.id }));
    return el("li", null, item);
  });
  if (answer.button) {
    const item = el("button", "command-item", el("b", null, answer.button));
    item.type = "button";
    item.addEventListener("click", () => onPick({ button: true }));
    items.unshift(el("li", null, item));
  }
  return el("ul", "commands", ...items);
}

export function commandMenu(commands, onPick) {
  return el("ul", "commands", ...commands.map((command) => {
    const item = el("button", "command-item", el("b", null, `/${command.command}`),
      el("span", null, command.description));
    item.type = "button";
    item.addEventListener("click", () => onPick(command.command));
    return el("li", null, item);
  }));
}
