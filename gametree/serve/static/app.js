// The page of `gametree serve`: play and analyse any installed game.  Vanilla JavaScript, no build step.
// Everything the server sends is put into the page as text (textContent, setAttribute) or, for the board's
// SVG, as an image (an <img> of a blob: an SVG image runs no script); never through innerHTML.
"use strict";

const page = {
  games: [], // what /api/games lists
  players: [], // the computer players
  game: null, // the chosen game's entry of `games`
  options: {}, // its options as given (the others are the game's defaults)
  moves: [], // the moves from the start
  redo: [], // moves taken back, to play again
  seats: [], // per player: "human" or a computer player's name
  budget: 2,
  analyse: true,
  paused: false, // after an undo the computers wait until asked (or a move is played)
  position: null, // the last /api/position answer
  values: new Map(), // moves text -> value of the position for player 0, in [-1, 1], and whether exact
  toMove: new Map(), // moves text -> the player to move there
  generation: 0, // bumped at every change: older answers are dropped, their requests aborted
  controller: null,
  boardUrl: null,
};

const $ = (id) => document.getElementById(id);

function el(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== null) node.textContent = String(text);
  return node;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(path, body, signal) {
  const init = body === undefined ? { signal } : {
    method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" }, signal,
  };
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const said = data && typeof data.error === "string" ? data.error : `${response.status} ${response.statusText}`;
    throw new Error(said);
  }
  return data;
}

function positionQuery() {
  return { game: page.game.name, options: JSON.stringify(page.options), moves: page.moves.join(" ") };
}

// ---- the address: the position, shareable and reloadable -------------------------------------------------

function writeAddress() {
  const query = new URLSearchParams({
    game: page.game.name, options: JSON.stringify(page.options), moves: page.moves.join(" "),
    seats: page.seats.join(","), budget: String(page.budget),
  });
  if (page.redo.length) query.set("redo", JSON.stringify(page.redo));
  history.replaceState(null, "", "?" + query.toString());
}

function readAddress() {
  const query = new URLSearchParams(location.search);
  const name = query.get("game");
  page.game = page.games.find((g) => g.name === name) || page.games.find((g) => g.name === "tictactoe") || page.games[0];
  try {
    const options = JSON.parse(query.get("options") || "{}");
    page.options = options && typeof options === "object" && !Array.isArray(options) ? options : {};
  } catch (e) { page.options = {}; }
  page.moves = (query.get("moves") || "").split(/\s+/).filter(Boolean);
  try {
    const redo = JSON.parse(query.get("redo") || "[]");
    page.redo = Array.isArray(redo) ? redo.filter((m) => typeof m === "string") : [];
  } catch (e) { page.redo = []; }
  page.seats = (query.get("seats") || "").split(",").filter(Boolean);
  const budget = Number(query.get("budget"));
  if (budget >= 0.1 && budget <= 60) page.budget = budget;
}

// ---- the form: game, options, seats ------------------------------------------------------------------------

function fillGames() {
  const select = $("game");
  select.replaceChildren(...page.games.map((g) => el("option", { value: g.name }, g.name)));
  select.value = page.game.name;
}

function fillOptions() {
  const box = $("options");
  box.replaceChildren();
  for (const option of page.game.options) {
    const label = el("label", { title: option.help || option.name }, option.name + " ");
    let input;
    if (option.type === "bool") {
      input = el("input", { type: "checkbox", "data-option": option.name, "data-type": "bool" });
      input.checked = Boolean(page.options[option.name] ?? option.default);
    } else if (option.choices) {
      input = el("select", { "data-option": option.name, "data-type": "str" });
      input.replaceChildren(...option.choices.map((c) => el("option", { value: c }, c)));
      input.value = String(page.options[option.name] ?? option.default ?? option.choices[0]);
    } else {
      const number = option.type === "int" || option.type === "float";
      input = el("input", {
        type: number ? "number" : "text", "data-option": option.name, "data-type": option.type,
        step: option.type === "int" ? "1" : "any", size: "8",
      });
      const value = page.options[option.name] ?? option.default;
      input.value = value === null || value === undefined ? "" : String(value);
      if (option.default === null) input.placeholder = "default";
    }
    label.appendChild(input);
    box.appendChild(label);
  }
}

function readOptions() {
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    const name = input.getAttribute("data-option");
    const type = input.getAttribute("data-type");
    if (type === "bool") options[name] = input.checked;
    else if (input.value.trim() === "") continue;
    else if (type === "int") options[name] = parseInt(input.value, 10);
    else if (type === "float") options[name] = parseFloat(input.value);
    else options[name] = input.value;
  }
  return options;
}

function fillSeats(names) {
  const box = $("seats");
  box.replaceChildren();
  names.forEach((name, index) => {
    if (!page.seats[index]) page.seats[index] = index === 0 ? "human" : "perfect";
    const select = el("select", { "data-seat": index, "aria-label": `who plays ${name}` });
    select.replaceChildren(...["human", ...page.players].map((p) => el("option", { value: p }, p)));
    select.value = page.seats[index];
    select.addEventListener("change", () => {
      page.seats[index] = select.value;
      page.paused = false;
      writeAddress();
      refresh();
    });
    const label = el("label", {}, name + " ");
    label.appendChild(select);
    box.appendChild(label);
  });
  page.seats.length = names.length;
}

// ---- drawing ------------------------------------------------------------------------------------------------

function drawBoard(position, analysis) {
  const box = $("board");
  const text = $("text");
  box.replaceChildren();
  if (page.boardUrl) URL.revokeObjectURL(page.boardUrl);
  page.boardUrl = null;
  if (!position.board) {
    text.hidden = false;
    text.textContent = position.text;
    return;
  }
  text.hidden = true;
  const board = position.board;
  const scale = Math.min(2.5, Math.max(1, 420 / board.width));
  page.boardUrl = URL.createObjectURL(new Blob([board.svg], { type: "image/svg+xml" }));
  const image = el("img", { src: page.boardUrl, alt: position.text, width: board.width * scale, height: board.height * scale });
  box.appendChild(image);
  const values = new Map((analysis ? analysis.moves : []).map((m) => [m.move, m]));
  const human = isHumanTurn(position);
  for (const legal of position.legal) {
    if (!legal.cell) continue;
    const [row, column] = legal.cell;
    const value = values.get(legal.move);
    const button = el("button", {
      type: "button", class: "cell " + valueClass(value), "data-move": legal.move,
      title: legal.move + (value ? ": " + value.text : ""), "aria-label": "play " + legal.move,
    }, value && page.analyse ? value.label : "");
    const size = board.cell * scale;
    button.style.left = `${(board.left + column * board.cell + 1) * scale}px`;
    button.style.top = `${(board.top + row * board.cell + 1) * scale}px`;
    button.style.width = `${size}px`;
    button.style.height = `${size}px`;
    button.disabled = !human;
    button.addEventListener("click", () => play(legal.move));
    box.appendChild(button);
  }
}

function valueClass(value) {
  if (!value || !page.analyse) return "v-none";
  return `v-${value.value}` + (value.exact ? "" : " guess");
}

function drawMoves(position, analysis) {
  const box = $("legal");
  box.replaceChildren();
  const values = new Map((analysis ? analysis.moves : []).map((m) => [m.move, m]));
  const human = isHumanTurn(position);
  for (const legal of position.legal) {
    const value = values.get(legal.move);
    const button = el("button", {
      type: "button", class: valueClass(value), "data-move": legal.move,
      title: value ? value.text : legal.move,
    }, legal.move);
    if (value && page.analyse) {
      button.setAttribute("data-value", value.value);
      button.appendChild(el("span", { class: "label" }, value.label));
    }
    button.disabled = !human;
    button.addEventListener("click", () => play(legal.move));
    box.appendChild(button);
  }
  $("value").textContent = analysis && page.analyse ? `(${describe(analysis)})` : "";
}

function describe(analysis) {
  if (analysis.source === "over" || analysis.source === "chance") return analysis.text;
  const whose = analysis.to_move >= 0 ? page.position.players[analysis.to_move] : "chance";
  const how = { tiers: "from the tier directory", store: "from the store", search: "proven", guess: "best guess", busy: "server busy", timeout: "out of time" };
  return `${whose} ${analysis.text}; ${how[analysis.source] || analysis.source}`;
}

function drawHistory() {
  const list = $("history");
  list.replaceChildren(...page.moves.map((m) => el("li", {}, m)));
}

function drawChart() {
  const svg = $("chart");
  const ns = "http://www.w3.org/2000/svg";
  const width = 320, height = 140, pad = 14;
  svg.replaceChildren();
  const shape = (tag, attributes) => {
    const node = document.createElementNS(ns, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    svg.appendChild(node);
    return node;
  };
  shape("line", { x1: pad, x2: width - pad, y1: height / 2, y2: height / 2, stroke: "#bbb" });
  const names = page.position ? page.position.players : [];
  const caption = (y, text) => { shape("text", { x: pad, y, "font-size": 10, fill: "#666" }).textContent = text; };
  if (names.length) { caption(10, `${names[0]} wins`); caption(height - 3, `${names[1] || "others"} win`); }
  const points = [];
  const plies = Math.max(page.moves.length, 1);
  for (let ply = 0; ply <= page.moves.length; ply++) {
    const value = page.values.get(page.moves.slice(0, ply).join(" "));
    if (!value) continue;
    const x = pad + (ply / plies) * (width - 2 * pad);
    const y = height / 2 - value.v * (height / 2 - pad);
    points.push(`${x},${y}`);
    shape("circle", { cx: x, cy: y, r: 3, fill: value.exact ? "#263238" : "#90a4ae", "data-ply": ply });
  }
  if (points.length > 1) shape("polyline", { points: points.join(" "), fill: "none", stroke: "#1976d2" });
}

// The value of a position for player 0, in [-1, 1], from its moves' values (the best for the side to move).
function positionValue(analysis) {
  if (!analysis.moves.length || analysis.to_move < 0) return null;
  let best = -Infinity;
  for (const m of analysis.moves) {
    let v;
    if (m.value === "unknown") continue;
    if (m.probability !== null) v = 2 * m.probability - 1;
    else if (m.payoff !== null) v = 2 * m.payoff - 1;
    else if (!m.exact) v = Math.max(-1, Math.min(1, m.score));
    else v = m.value === "win" ? 1 : m.value === "loss" ? -1 : 0;
    best = Math.max(best, v);
  }
  if (best === -Infinity) return null;
  return { v: analysis.to_move === 0 ? best : -best, exact: analysis.exact };
}

// ---- play ---------------------------------------------------------------------------------------------------

function isHumanTurn(position) {
  return !position.outcome && !position.chance && page.seats[position.to_move] === "human";
}

function play(move) {
  page.moves.push(move);
  if (page.redo.length && page.redo[page.redo.length - 1] === move) page.redo.pop();
  else page.redo = [];
  page.paused = false;
  writeAddress();
  refresh();
}

function undo() {
  if (!page.moves.length) return;
  // Back to the last position where a person is to move (one ply when the computers play each other).
  const mover = () => {
    const key = page.moves.join(" ");
    return page.toMove.has(key) ? page.toMove.get(key) : page.moves.length % page.seats.length;
  };
  do {
    page.redo.push(page.moves.pop());
  } while (page.moves.length && page.seats.includes("human") && page.seats[mover()] !== "human");
  page.paused = true;
  writeAddress();
  refresh();
}

function redo() {
  if (!page.redo.length) return;
  page.moves.push(page.redo.pop());
  page.paused = true;
  writeAddress();
  refresh();
}

async function refresh() {
  const generation = ++page.generation;
  if (page.controller) page.controller.abort(); // (the server stops the searches of the old position)
  const controller = page.controller = new AbortController();
  const current = () => generation === page.generation;
  document.body.setAttribute("data-busy", "true");
  document.body.setAttribute("data-ready", "false");
  showError("");
  let position;
  try {
    position = await api("/api/position?" + new URLSearchParams(positionQuery()), undefined, controller.signal);
  } catch (error) {
    if (!current()) return;
    ready();
    showError(error.message);
    return;
  }
  if (!current()) return;
  page.position = position;
  page.moves = position.moves; // (as the game splits them: a move may hold a space, "rolled 3")
  page.toMove.set(page.moves.join(" "), position.to_move);
  $("undo").disabled = !page.moves.length;
  $("redo").disabled = !page.redo.length;
  $("tree").setAttribute("href", "/api/tree?" + new URLSearchParams(positionQuery()));
  $("tree").hidden = Boolean(position.outcome);
  drawStatus(position, null);
  drawBoard(position, null);
  drawMoves(position, null);
  drawHistory();
  drawChart();
  const computer = !position.outcome && (position.chance || page.seats[position.to_move] !== "human");
  $("resume").hidden = !(computer && page.paused);
  // The computer's move is asked for at once, beside the analysis (shown before the move is played).
  const moving = computer && !page.paused ? api("/api/move", {
    ...positionQuery(), player: position.chance ? "random" : page.seats[position.to_move], budget: page.budget,
    seed: Math.floor(Math.random() * 2 ** 31),
  }, controller.signal).then((answer) => ({ answer }), (error) => ({ error })) : null;
  let analysis = null;
  if (page.analyse && !position.outcome) {
    try {
      analysis = await api("/api/analyse", { ...positionQuery(), budget: page.budget }, controller.signal);
    } catch (error) {
      if (!current()) return;
      showError(error.message);
    }
    if (!current()) return;
    if (analysis) {
      const value = positionValue(analysis);
      if (value) page.values.set(page.moves.join(" "), value);
      drawBoard(position, analysis);
      drawMoves(position, analysis);
      drawChart();
    }
  }
  drawStatus(position, analysis);
  if (moving) {
    const { answer, error } = await moving;
    if (!current()) return;
    if (error) {
      showError(error.message);
      ready();
      return;
    }
    page.moves.push(answer.move);
    page.redo = [];
    writeAddress();
    refresh();
    return;
  }
  ready();
  backfill(generation, controller.signal);
}

// The value history of positions the page did not analyse (a game opened from its address), one at a time,
// while the page waits for a person; a new position stops it.
async function backfill(generation, signal) {
  if (!page.analyse) return;
  for (let ply = 0; ply < page.moves.length; ply++) {
    const moves = page.moves.slice(0, ply).join(" ");
    if (page.values.has(moves)) continue;
    let analysis;
    try {
      analysis = await api("/api/analyse", { ...positionQuery(), moves, budget: Math.min(page.budget, 1) }, signal);
    } catch (error) {
      return;
    }
    if (generation !== page.generation) return;
    const value = positionValue(analysis);
    if (value) page.values.set(moves, value);
    page.toMove.set(moves, analysis.to_move);
    drawChart();
  }
}

// What a test (or a screen reader's user) can wait for: the page is settled on this position.
function ready() {
  document.body.setAttribute("data-busy", "false");
  document.body.setAttribute("data-moves", page.moves.join(" "));
  document.body.setAttribute("data-ply", String(page.moves.length));
  document.body.setAttribute("data-ready", "true");
}

function drawStatus(position, analysis) {
  let text;
  if (position.outcome) text = `Game over: ${position.outcome.text}.`;
  else if (position.chance) text = "The dice are rolled…";
  else {
    const name = position.players[position.to_move];
    const who = page.seats[position.to_move] === "human" ? "your move" : `${page.seats[position.to_move]} is thinking`;
    text = `${name} to move (${page.paused && page.seats[position.to_move] !== "human" ? "paused" : who}).`;
  }
  $("status").textContent = text;
  document.body.setAttribute("data-outcome", position.outcome ? position.outcome.text : "");
}

// ---- start --------------------------------------------------------------------------------------------------

function newGame(event) {
  if (event) event.preventDefault();
  page.options = readOptions();
  page.moves = [];
  page.redo = [];
  page.values.clear();
  page.paused = false;
  writeAddress();
  start();
}

async function start() {
  fillOptions();
  let names;
  try {
    const position = await api("/api/position?" + new URLSearchParams({ ...positionQuery(), moves: "" }));
    names = position.players;
  } catch (error) {
    showError(error.message);
    names = ["first", "second"];
  }
  fillSeats(names);
  writeAddress();
  refresh();
}

async function main() {
  try {
    const listed = await api("/api/games");
    page.games = listed.games;
    page.players = listed.players;
  } catch (error) {
    showError("cannot list the games: " + error.message);
    return;
  }
  readAddress();
  $("budget").value = String(page.budget);
  fillGames();
  $("game").addEventListener("change", () => {
    page.game = page.games.find((g) => g.name === $("game").value);
    page.options = {};
    page.seats = [];
    fillOptions();
    newGame();
  });
  $("setup").addEventListener("submit", newGame);
  $("budget").addEventListener("change", () => {
    const value = Number($("budget").value);
    if (value >= 0.1 && value <= 60) { page.budget = value; writeAddress(); }
  });
  $("analyse").addEventListener("change", () => { page.analyse = $("analyse").checked; refresh(); });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("resume").addEventListener("click", () => { page.paused = false; refresh(); });
  document.addEventListener("keydown", (event) => {
    if (event.altKey && event.key === "ArrowLeft") undo();
    if (event.altKey && event.key === "ArrowRight") redo();
  });
  start();
}

main();
