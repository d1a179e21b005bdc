// What the player may do, read from the state's `legal` list: the page never judges the rules.

export function movesWithCard(state, card) {
  return (state?.legal ?? []).filter((m) => m.card === card);
}

export function playableCards(state) {
  return new Set((state?.legal ?? []).filter((m) => m.card).map((m) => m.card));
}

export function hasMove(state, kind) {
  return (state?.legal ?? []).some((m) => m.move === kind);
}

export function cardsFor(state, kind) {
  return (state?.legal ?? []).filter((m) => m.move === kind).map((m) => m.card);
}

export function defenceTargets(state, card) {
  return movesWithCard(state, card).filter((m) => m.move === 'defend').map((m) => m.target);
}

export function findMove(state, wanted) {
  return (state?.legal ?? []).find((m) => m.move === wanted.move
    && (wanted.card === undefined || m.card === wanted.card)
    && (wanted.target === undefined || m.target === wanted.target)) ?? null;
}

// A card dropped on the table without a target: a lead or throw-in, else a transfer, else the
// one defence it allows.
export function dropOnTable(state, card) {
  const moves = movesWithCard(state, card);
  const attack = moves.find((m) => m.move === 'attack');
  if (attack) return attack;
  const transfer = moves.find((m) => m.move === 'transfer');
  if (transfer) return transfer;
  const defences = moves.filter((m) => m.move === 'defend');
  return defences.length === 1 ? defences[0] : null;
}
