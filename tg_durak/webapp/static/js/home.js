// The app with no table: the quick game with people. The state brings every text and, on each
// button, the `quick` frame it sends (render/app_state.py's quick_state): the page only draws
// it. Choosing: the game, players, deck and wait as rows of options, then Find players.
// Waiting: his game, a seat for each player (filled by those waiting), the clock of his wait,
// then Start with computers once it is over, and Leave.
import { backSvg, faceSvg } from './cards.js';
import { $, clockBar, h } from './dom.js';
import { ID } from './ids.js';

const FAN = ['Ah', 'Ks', 'Qd'];   // the chooser's picture: a few cards fanned on the felt

// A button whose tap sends the quick frame it carries (main.js reads data-quick).
function tapButton(text, tap, className, pressed = null) {
  return h('button', {
    type: 'button', class: className, text,
    'aria-pressed': pressed === null ? null : String(pressed),
    data: { quick: JSON.stringify(tap) },
  });
}

function fan() {
  return h('div', { class: 'home-fan', 'aria-hidden': 'true' }, FAN.map((code, i) => {
    const card = h('div', { class: 'card', data: { i: String(i) } });
    card.append(faceSvg(code));
    return card;
  }));
}

// A place for each player: the people waiting take theirs, the rest wait for someone.
function seats(waiting) {
  return h('div', { class: 'home-seats', 'aria-hidden': 'true' },
    Array.from({ length: waiting.players }, (_, i) => {
      const taken = i < waiting.count;
      const seat = h('div', { class: `home-seat${taken ? ' taken' : ''}` });
      if (taken) {
        const back = h('div', { class: 'card back-card' });
        back.append(backSvg());
        seat.append(back);
      }
      return seat;
    }));
}

function choosing(state) {
  const quick = state.quick;
  return [
    h('p', { class: 'home-intro', text: state.text.intro }),
    ...quick.rows.map((row) => h('div', { class: 'home-row', role: 'group', 'aria-label': row.label }, [
      h('div', { class: 'home-label', text: row.label, 'aria-hidden': 'true' }),
      h('div', { class: 'home-options', data: { count: String(row.options.length) } },
        row.options.map((o) => tapButton(o.text, o.tap, 'home-option', o.chosen))),
    ])),
    tapButton(quick.find.text, quick.find.tap, `action big ${quick.find.look}`),
  ];
}

function waitingFor(waiting, clocks) {
  const [game, ...rest] = waiting.lines;
  const clock = clockBar('home-clock');
  const text = waiting.wait?.text ?? '';
  clocks.push({ element: clock, deadline: waiting.wait, say: (s) => text.replace('{s}', String(s)) });
  return [
    h('div', { class: 'home-waiting', role: 'status', 'aria-live': 'polite' }, [
      h('p', { class: 'home-game', text: game }),
      ...rest.map((line) => h('p', { class: 'home-line', text: line })),
    ]),
    clock,
    h('div', { class: 'home-buttons' }, waiting.buttons.map(
      (b) => tapButton(b.text, b.tap, `action big ${b.look}`))),
  ];
}

// The choice the state shows, as the frame that makes it: any row's chosen option carries the
// whole choice (null while he waits, when no choice is shown).
export function shownChoice(state) {
  if (state.quick.waiting) return null;
  return state.quick.rows[0]?.options.find((o) => o.chosen)?.tap ?? null;
}

// Whether `node`, a button with a quick frame, is an option of the choice (not Find or Leave).
export function isChoiceButton(node) {
  return Boolean(node.closest('.home-row'));
}

// Draws the state; returns the clocks to run (clock.js).
export function renderHome(state) {
  const waiting = state.quick.waiting;
  const clocks = [];
  document.body.dataset.view = 'home';
  document.body.dataset.over = '0';
  document.body.dataset.waiting = waiting ? '1' : '0';
  $(ID.home).replaceChildren(
    h('div', { class: 'home-felt' }, [
      waiting ? seats(waiting) : fan(),
      h('h1', { class: 'home-title', text: state.text.title }),
    ]),
    ...(waiting ? waitingFor(waiting, clocks) : choosing(state)),
  );
  return clocks;
}
