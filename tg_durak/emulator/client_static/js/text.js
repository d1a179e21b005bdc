// Message text with its entities, built as DOM nodes (never as HTML). Entity offsets count
// UTF-16 code units, as JavaScript strings do, so they index the string directly.

const TAGS = {
  bold: "strong", italic: "em", underline: "u", strikethrough: "s", code: "code", pre: "pre",
  blockquote: "blockquote", expandable_blockquote: "blockquote", spoiler: "span",
};

export function renderText(text, entities) {
  const sorted = [...entities].sort((a, b) => a.offset - b.offset || b.length - a.length);
  const fragment = document.createDocumentFragment();
  build(fragment, text, 0, text.length, sorted);
  return fragment;
}

// Entities inside [start, end); one that overlaps the previous is clipped, as Telegram does.
function build(parent, text, start, end, entities) {
  let pos = start;
  let k = 0;
  while (k < entities.length) {
    const entity = entities[k++];
    const from = Math.max(entity.offset, pos);
    const to = Math.min(entity.offset + entity.length, end);
    if (to <= from) continue;
    const inner = [];
    while (k < entities.length && entities[k].offset < to) inner.push(entities[k++]);
    if (from > pos) parent.append(text.slice(pos, from));
    const node = element(entity, text.slice(from, to));
    build(node, text, from, to, inner);
    parent.append(node);
    pos = to;
  }
  if (end > pos) parent.append(text.slice(pos, end));
}

function element(entity, inner) {
  const url = entity.type === "text_link" ? entity.url : entity.type === "url" ? inner : null;
  if (url !== null) {
    const link = document.createElement("a");
    link.className = "link";
    link.dataset.url = /^[a-z]+:/i.test(url) ? url : `https://${url}`;
    link.href = link.dataset.url.startsWith("http") ? link.dataset.url : "#";
    return link;
  }
  const node = document.createElement(TAGS[entity.type] ?? "span");
  if (entity.type === "spoiler") node.className = "spoiler";
  if (entity.type === "bot_command" || entity.type === "mention") node.className = "command";
  return node;
}
