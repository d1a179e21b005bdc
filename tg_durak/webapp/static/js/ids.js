// The page's elements, by the ids index.html gives them: scripts name them only through here
// (tests/webapp/test_page_ids.py holds this list to index.html and the scripts to this list).
export const ID = Object.freeze({
  app: 'app',
  header: 'header',
  fourColour: 'four-colour',
  seats: 'seats',
  table: 'table',
  stock: 'stock',
  discard: 'discard',
  pairs: 'pairs',
  windowBar: 'window-bar',
  panel: 'panel',
  turn: 'turn',
  last: 'last',
  actions: 'actions',
  me: 'me',
  meStrip: 'me-strip',
  hand: 'hand',
  fx: 'fx',
  toast: 'toast',
  screen: 'screen',
  screenText: 'screen-text',
});
