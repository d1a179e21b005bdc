// Small DOM helpers. The page never writes HTML strings (the CSP forbids inline styles, and
// texts from the server stay text).

// The page's element of that id (ids.js names them).
export const $ = (id) => document.getElementById(id);

export function h(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else if (name === 'data') Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of [].concat(children)) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

// A clock: its seconds (`.clock-label`) beside its bar (clock.js draws both).
export function clockBar(extraClass = '') {
  return h('div', { class: `clock ${extraClass}`, hidden: true }, [
    h('div', { class: 'bar' }, [h('div', { class: 'bar-fill' })]),
    h('span', { class: 'clock-label' }),
  ]);
}
