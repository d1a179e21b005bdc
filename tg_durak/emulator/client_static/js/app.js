// The emulator's Telegram-like client: one person (?as=alice) per tab, his chats kept live by
// long-polling api/state. What he taps or types goes to the emulator as a Telegram app's would.

import { getJSON, postJSON } from "./api.js";
import {
  avatar, chatHead, chatItem, commandMenu, el, inlineResults, messageItem, picker,
} from "./render.js";

const who = (new URLSearchParams(location.search).get("as") ?? "").toLowerCase();
const root = document.getElementById("app");
const view = {
  me: null, bot: null, people: [], state: null, version: -1, active: null,
  seen: new Map(),    // chat id -> the stamp last looked at (older stamps: unread)
  drawn: new Map(),   // message id -> {key, node} of the open chat
  drawnChat: null,
};
const refs = {};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const { people, bot } = await getJSON("api/people");
  Object.assign(view, { people, bot, me: people.find((p) => p.key === who) ?? null });
  if (!view.me) {
    root.replaceChildren(picker(people, bot));
    return;
  }
  document.title = `${view.me.name} · Telegram emulator`;
  const wanted = Number(new URLSearchParams(location.hash.slice(1)).get("chat"));
  view.active = Number.isFinite(wanted) && wanted !== 0 ? wanted : view.me.id;
  buildShell();
  poll();
}

function buildShell() {
  const { me, people } = view;
  const switcher = el("select", "switch", ...people.map((person) => {
    const option = el("option", null, person.name);
    option.value = person.key;
    option.selected = person.key === me.key;
    return option;
  }));
  switcher.setAttribute("aria-label", "Switch person");
  switcher.addEventListener("change", () => { location.search = `?as=${switcher.value}`; });
  const others = people.filter((p) => p.key !== me.key).map((person) => {
    const link = el("a", null, person.name);
    link.href = `?as=${person.key}`;
    link.target = "_blank";
    return link;
  });
  refs.chats = el("nav", "chat-list");
  refs.chats.setAttribute("aria-label", "Chats");
  refs.head = el("header", "chat-head");
  refs.list = el("ol", "messages");
  refs.scroller = el("div", "scroller", refs.list);
  refs.input = el("input", "input");
  Object.assign(refs.input, { placeholder: "Message", autocomplete: "off", enterKeyHint: "send" });
  refs.input.setAttribute("aria-label", "Message");
  refs.menuButton = el("button", "menu-button", "Menu");
  refs.menuButton.type = "button";
  const sendButton = el("button", "send", "➤");
  sendButton.type = "submit";
  sendButton.setAttribute("aria-label", "Send");
  refs.composer = el("form", "composer", refs.menuButton, refs.input, sendButton);
  refs.start = el("button", "start-button", "START");
  refs.start.type = "button";
  refs.commands = el("div", "commands-popup");
  refs.commands.hidden = true;
  root.replaceChildren(el("div", "shell",
    el("aside", "sidebar",
      el("div", "me", avatar(me.name, me.id, true), switcher),
      refs.chats,
      el("p", "others", "Open another tab as ", ...others.flatMap((a, i) => (i ? [", ", a] : [a])))),
    el("section", "chat", refs.head, refs.scroller, refs.commands, refs.composer, refs.start)));

  refs.chats.addEventListener("click", (event) => {
    const item = event.target.closest("[data-chat]");
    if (item) select(Number(item.dataset.chat));
  });
  refs.list.addEventListener("click", onMessageClick);
  refs.composer.addEventListener("submit", (event) => {
    event.preventDefault();
    send(refs.input.value);
  });
  refs.start.addEventListener("click", () => send("/start"));
  refs.menuButton.addEventListener("click", () => { refs.commands.hidden = !refs.commands.hidden; });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") refs.commands.hidden = true;
  });
}

async function poll() {
  for (;;) {
    try {
      const state = await getJSON(`api/state?as=${encodeURIComponent(who)}&since=${view.version}`);
      view.version = state.version;
      view.state = state;
      root.classList.remove("offline");
      draw();
    } catch {
      root.classList.add("offline");
      await sleep(1000);
    }
  }
}

function activeChat() {
  const chats = view.state.chats;
  return chats.find((chat) => chat.id === view.active) ?? chats[0];
}

function select(chatId) {
  view.active = chatId;
  history.replaceState(null, "", `?as=${who}#chat=${chatId}`);
  refs.commands.hidden = true;
  draw();
}

function draw() {
  const chat = activeChat();
  view.active = chat.id;
  for (const other of view.state.chats) {
    if (!view.seen.has(other.id) || other.id === chat.id) view.seen.set(other.id, other.stamp);
  }
  refs.chats.replaceChildren(...view.state.chats.map((other) =>
    chatItem(other, other.id === chat.id, other.stamp > view.seen.get(other.id))));
  refs.head.replaceChildren(...chatHead(chat));
  drawMessages(chat);
  refs.composer.hidden = !chat.started;
  refs.start.hidden = chat.started;
  refs.menuButton.hidden = chat.commands.length === 0;
  refs.commands.replaceChildren(commandMenu(chat.commands, (command) => {
    refs.commands.hidden = true;
    send(chat.type === "private" ? `/${command}` : `/${command}@${view.bot.username}`);
  }));
}

// Keyed by message id: a message is rebuilt only when it changed (an edit replaces it in place).
function drawMessages(chat) {
  const { list, scroller } = refs;
  const switched = view.drawnChat !== chat.id;
  const atBottom = switched
    || scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
  if (switched) {
    list.replaceChildren();
    view.drawn.clear();
    view.drawnChat = chat.id;
  }
  const byId = new Map(chat.messages.map((message) => [message.id, message]));
  const kept = new Set();
  let previous = null;
  for (const message of chat.messages) {
    const replied = byId.get(message.reply_to);
    const key = JSON.stringify([message, replied?.text]);
    let entry = view.drawn.get(message.id);
    if (!entry || entry.key !== key) {
      const node = messageItem(message, chat, byId);
      if (entry) entry.node.replaceWith(node);
      entry = { key, node };
      view.drawn.set(message.id, entry);
    }
    const place = previous ? previous.nextSibling : list.firstChild;
    if (entry.node !== place) list.insertBefore(entry.node, place);
    previous = entry.node;
    kept.add(message.id);
  }
  for (const [id, entry] of view.drawn) {
    if (!kept.has(id)) {
      entry.node.remove();
      view.drawn.delete(id);
    }
  }
  if (atBottom) scroller.scrollTop = scroller.scrollHeight;
}

function onMessageClick(event) {
  const target = event.target.closest(".key, .link");
  const item = event.target.closest("[data-message]");
  if (!target || !item) return;
  event.preventDefault();
  const chat = activeChat();
  const message = chat.messages.find((m) => m.id === Number(item.dataset.message));
  const button = target.classList.contains("link")
    ? { kind: "url", text: target.textContent, url: target.dataset.url }
    : message.buttons[Number(target.dataset.row)][Number(target.dataset.col)];
  tap(chat, message, button, target);
}

async function tap(chat, message, button, node) {
  node.classList.add("busy");
  const answer = await postJSON("api/tap",
    { as: who, chat_id: chat.id, message_id: message.id, button });
  node.classList.remove("busy");
  if (answer.error) toast(answer.error);
  if (answer.toast) (answer.toast.alert ? alert : toast)(answer.toast.text);
  if (answer.open) open(answer.open);
  if (answer.chat) select(answer.chat);
}

async function send(text) {
  text = text.trim();
  if (!text) return;
  const chat = activeChat();
  const mention = `@${view.bot.username}`.toLowerCase();
  if (chat.inline && text.toLowerCase().startsWith(mention)) {
    askInline(chat, text.slice(mention.length).trim());
    return;
  }
  refs.input.value = "";
  const answer = await postJSON("api/send", { as: who, chat_id: chat.id, text });
  if (answer.error) {
    refs.input.value = text;
    toast(answer.error);
  }
}

// Inline mode: "@bot query" asks the bot; the result picked is sent into the chat by the person.
async function askInline(chat, query) {
  const answer = await postJSON("api/inline", { as: who, chat_id: chat.id, query });
  if (answer.error) {
    toast(answer.error);
    return;
  }
  refs.input.value = "";
  refs.commands.replaceChildren(inlineResults(answer, async (picked) => {
    refs.commands.hidden = true;
    const done = await postJSON("api/inline/choose", { as: who, query_id: answer.id, ...picked });
    if (done.error) toast(done.error);
    if (done.chat) select(done.chat);
  }));
  refs.commands.hidden = false;
}

// A Mini App or a web link opens in a tab of its own, as Telegram opens it beside the chat.
function open(url) {
  const tab = window.open(url, "_blank");
  if (tab) tab.opener = null;
  else toast("The browser blocked the new tab: allow pop-ups for this page");
}

function toast(text) {
  const node = el("div", "toast", text);
  document.getElementById("toasts").append(node);
  setTimeout(() => node.classList.add("leaving"), 2600);
  setTimeout(() => node.remove(), 3000);
}

function alert(text) {
  const box = document.getElementById("alert");
  document.getElementById("alert-text").textContent = text;
  box.hidden = false;
  const ok = document.getElementById("alert-ok");
  ok.focus();
  ok.addEventListener("click", () => { box.hidden = true; }, { once: true });
}

main().catch((error) => {
  root.replaceChildren(el("p", "failure", `The emulator is not answering: ${error.message}`));
});
