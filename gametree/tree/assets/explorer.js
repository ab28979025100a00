/* gametree search-tree explorer: the page's own code (layout and zoom come from d3).
 *
 * Data: the JSON of gametree/tree/explorer.py (one entry per tree in DATA.trees).
 * Replay: the search's events are rebuilt from the tree, which holds nodes in visit order:
 *   enter (a position is entered with its window), cutoff (the moves left untried appear as
 *   pruned), leave (the position's value is known; its parent's best value and alpha move).
 * Step s means "the first s events have happened"; step 0 is before the search, the last
 * step the finished search.  With two trees, the larger one (minimax) drives the replay and
 * the other one's events happen when the first search reaches the same position.
 * Drawing is on a canvas, and only what is in view: large trees stay fast.
 */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("gametree-data").textContent);
  var page = document.documentElement;
  var app = document.getElementById("gametree");

  var ENTER = 0, CUTOFF = 1, LEAVE = 2;
  var FUTURE = 0, ACTIVE = 1, DONE = 2, PRUNED = 3;
  var STATUS_NAMES = ["future", "active", "done", "pruned"];
  var VIEWS = { negamax: "negamax scores", maxmin: "MAX / MIN values", wdl: "win / draw / loss" };
  //: Nodes shown at first: deeper levels start collapsed once a tree has more.
  var FIRST_VISIBLE = 8000;
  //: The smallest zoom (a fitted tree of 100,000 leaves in LR); projector mode's scale of boxes, boards and type.
  var MIN_ZOOM = 0.00005, PROJECTOR_SCALE = 1.6;
  var COLOURS = {
    win0: "#cfe2ff", win1: "#ffe0b2", draw: "#e9ecef", heuristic: "#fff6bf",
    lean0: "#eaf2ff", lean1: "#fff3e3", even: "#f6f7f8", bound: "#ffffff",
    active: "#fff9db", activeLine: "#f08c00", current: "#7048e8", selected: "#1971c2",
    pv: "#d62728", pruned: "#adb5bd", prunedFill: "#f1f3f5", ghost: "rgba(0,0,0,0.13)",
    line: "#868e96", text: "#222", note: "#666", skipped: "#9775fa", win: "#ffe066", last: "#dee2e6",
    p0: "#1864ab", p1: "#d9480f", chance: "#efe6fb", chanceLine: "#6a3d9a", mover: "#ffd54f"
  };
  //: Algorithms whose window narrows as children return, in negamax terms (alpha-beta's replay of alpha rising).
  var LIVE_WINDOW = { alphabeta: 1 };

  // ------------------------------------------------------------------------------------
  // Data
  function column(c, n) {
    if (c === undefined || c === null) return new Array(n).fill(null);
    if (Array.isArray(c)) return c;
    var out = new Array(c.codes.length);
    for (var i = 0; i < out.length; i++) out[i] = c.dict[c.codes[i]];
    return out;
  }
  function num(x) { return x === "inf" ? Infinity : x === "-inf" ? -Infinity : x; }
  function fmt(x) {
    if (x === null || x === undefined || Number.isNaN(x)) return "?";
    if (x === Infinity) return "\u221e";
    if (x === -Infinity) return "-\u221e";
    if (Number.isInteger(x)) return String(x);
    return String(Math.round(x * 1000) / 1000);
  }

  function Tree(d, index) {
    var n = d.parent.length, i;
    this.index = index;
    this.meta = d.meta;
    this.n = n;
    this.root = d.root;
    this.parent = Int32Array.from(d.parent);
    var c = function (name) { return column(d.nodes[name], n); };
    this.move = c("move"); this.depth = c("depth"); this.toMove = c("toMove"); this.pruned = c("pruned");
    this.value = c("value").map(num); this.bound = c("bound"); this.kind = c("kind");
    this.alpha = c("alpha").map(num); this.beta = c("beta").map(num);
    this.searchAlpha = c("searchAlpha").map(num); this.searchBeta = c("searchBeta").map(num);
    this.cache = c("cache"); this.cutoff = c("cutoff"); this.reason = c("reason"); this.pv = c("pv");
    this.winner = c("winner"); this.outcome = c("outcome"); this.visits = c("visits");
    this.cells = c("cells"); this.highlight = c("highlight"); this.last = c("last"); this.position = c("position");
    this.viewer = c("viewer"); this.chance = c("chance"); this.probability = c("probability");
    this.probabilityText = c("probabilityText"); this.payoffs = c("payoffs"); this.payoffsText = c("payoffsText");
    this.exact = c("valueText");
    this.players = this.meta.players || ["first player", "second player"];
    this.many = (this.meta.player_count || 2) > 2;
    this.margin = !!this.meta.margin;
    // Windows are shown where the search has them; alpha-beta's narrow as children return.
    this.windows = this.alpha.some(function (a) { return a !== null && a !== undefined; });
    this.prune = this.windows && !!LIVE_WINDOW[this.meta.algorithm];
    this.replayable = this.meta.algorithm !== "mcts";
    this.allMoves = !!this.meta.all_moves;
    var kids = this.kids = new Array(n);
    for (i = 0; i < n; i++) kids[i] = [];
    for (i = 0; i < n; i++) if (this.parent[i] >= 0) kids[this.parent[i]].push(i);
    var order = d.order;
    for (i = 0; i < n; i++) if (kids[i].length > 1) kids[i].sort(function (a, b) { return order[a] - order[b]; });
    // Pre-order (visit order), paths and subtree sizes.
    var pre = this.pre = new Int32Array(n), path = this.path = new Array(n), size = this.size = new Int32Array(n);
    var k = 0, stack = [this.root];
    path[this.root] = "";
    while (stack.length) {
      var x = stack.pop();
      pre[k++] = x;
      for (i = kids[x].length - 1; i >= 0; i--) {
        var y = kids[x][i];
        path[y] = path[x] ? path[x] + " " + this.move[y] : String(this.move[y]);
        stack.push(y);
      }
    }
    for (i = k - 1; i >= 0; i--) { size[pre[i]] += 1; if (this.parent[pre[i]] >= 0) size[this.parent[pre[i]]] += size[pre[i]]; }
    this.maxDepth = 0;
    for (i = 0; i < n; i++) if (this.depth[i] > this.maxDepth) this.maxDepth = this.depth[i];
    this.buildEvents();
    this.status = new Uint8Array(n);
    this.curAlpha = new Float64Array(n);
    this.best = new Float64Array(n);
    this.applied = -1;
    this.at = null;       // the driving replay's step of each event (second tree of a comparison)
    this.skipped = null;  // for minimax beside alpha-beta: positions alpha-beta never visited
  }

  Tree.prototype.buildEvents = function () {
    var kinds = [], nodes = [];
    if (this.replayable) {
      var stack = [[this.root, 0]];
      kinds.push(ENTER); nodes.push(this.root);
      while (stack.length) {
        var top = stack[stack.length - 1], x = top[0], kids = this.kids[x];
        if (top[1] < kids.length) {
          var y = kids[top[1]++];
          if (!this.pruned[y]) { kinds.push(ENTER); nodes.push(y); stack.push([y, 0]); }
          continue;
        }
        if (this.cutoff[x]) { kinds.push(CUTOFF); nodes.push(x); }
        kinds.push(LEAVE); nodes.push(x);
        stack.pop();
      }
    }
    this.evKind = Int8Array.from(kinds);
    this.evNode = Int32Array.from(nodes);
    this.events = kinds.length;
  };

  // Apply the first p events (from scratch when going back).
  Tree.prototype.progress = function (p) {
    if (!this.replayable) { this.status.fill(DONE); for (var j = 0; j < this.n; j++) if (this.pruned[j]) this.status[j] = PRUNED; this.applied = 0; return; }
    if (p < this.applied || this.applied < 0) { this.status.fill(FUTURE); this.applied = 0; }
    var status = this.status, kinds = this.evKind, nodes = this.evNode;
    for (var e = this.applied; e < p; e++) {
      var x = nodes[e], kind = kinds[e];
      if (kind === ENTER) {
        status[x] = ACTIVE;
        var a = this.searchAlpha[x];
        this.curAlpha[x] = a === null ? -Infinity : a;
        this.best[x] = -Infinity;
      } else if (kind === CUTOFF) {
        var kids = this.kids[x];
        for (var i = 0; i < kids.length; i++) if (this.pruned[kids[i]]) status[kids[i]] = PRUNED;
      } else {
        status[x] = DONE;
        var parent = this.parent[x];
        if (parent >= 0 && !this.chance[parent]) {
          var score = this.scoreFor(parent, x);
          if (score > this.best[parent]) this.best[parent] = score;
          if (this.prune && !(parent === this.root && this.allMoves) && score > this.curAlpha[parent]) this.curAlpha[parent] = score;
        }
      }
    }
    this.applied = p;
  };

  // A child's value for its parent's viewer (negamax: the negation, unless both have the same viewer).
  Tree.prototype.scoreFor = function (parent, x) {
    if (this.many) {
      var m = this.toMove[parent], p = this.payoffs[x];
      return p && m !== null && m >= 0 ? p[m] : -Infinity;
    }
    var same = (this.viewer[x] === null ? this.toMove[x] : this.viewer[x]) === (this.viewer[parent] === null ? this.toMove[parent] : this.viewer[parent]);
    return same ? this.value[x] : -this.value[x];
  };

  // The window a node is searched with now (active) or was entered with, in negamax terms.
  Tree.prototype.windowOf = function (x) {
    if (!this.windows || this.alpha[x] === null || this.alpha[x] === undefined) return null;
    if (this.status[x] === ACTIVE && this.prune) return [this.curAlpha[x], this.searchBeta[x] === null ? this.beta[x] : this.searchBeta[x]];
    return [this.alpha[x], this.beta[x]];
  };
  Tree.prototype.where = function (x) { return x === this.root ? "the root" : this.path[x]; };

  // ------------------------------------------------------------------------------------
  // Views: negamax (for the side to move), MAX/MIN (for the first player), win/draw/loss.
  var state = { view: VIEWS[DATA.view] ? DATA.view : "negamax", step: 0, steps: 0, playing: false, speed: 5, selected: null, hover: null, orient: null, projector: false };

  function sideSign(t, x) { var v = t.viewer[x]; if (v === null || v === undefined) v = t.toMove[x]; return v === 1 ? -1 : 1; }
  function flipBound(b) { return b === "lower" ? "upper" : b === "upper" ? "lower" : b; }
  function viewed(t, x, v, bound) {
    if (state.view === "negamax" || t.many) return { v: v, bound: bound };
    var s = sideSign(t, x);
    return { v: s * v, bound: s < 0 ? flipBound(bound) : bound };
  }
  function viewWindow(t, x, w) {
    if (!w || state.view === "negamax" || t.many || sideSign(t, x) > 0) return w;
    return [-w[1], -w[0]];
  }
  function windowText(w) { return w ? "[" + fmt(w[0]) + ", " + fmt(w[1]) + "]" : ""; }
  function isHeuristic(t, x, v) {
    return t.kind[x] === "heuristic" || t.bound[x] === "estimate" || (t.meta.depth !== null && t.meta.depth !== undefined && !Number.isInteger(v));
  }
  function relation(bound) { return bound === "lower" ? "\u2265" : bound === "upper" ? "\u2264" : bound === "estimate" ? "\u2248" : "="; }
  function wdlText(t, x, v, bound) {
    var p = t.players, w = viewed(t, x, v, bound), u = w.v;
    if (isHeuristic(t, x, v)) return (u > 0 ? p[0] + " ahead" : u < 0 ? p[1] + " ahead" : "even") + " (" + fmt(u) + ")";
    if (w.bound === "lower") return u > 0 ? p[0] + " wins" : u === 0 ? p[0] + " draws or wins" : "not settled";
    if (w.bound === "upper") return u < 0 ? p[1] + " wins" : u === 0 ? p[1] + " draws or wins" : "not settled";
    return u > 0 ? p[0] + " wins" : u < 0 ? p[1] + " wins" : "draw";
  }
  // What a node's value line says in the current view.
  function valueText(t, x) {
    var v = t.value[x];
    if (v === null || v === undefined) return "";
    if (t.many && t.payoffs[x]) return payoffText(t, x);
    if (state.view === "wdl" && !t.margin && !t.chance[x]) return wdlText(t, x, v, t.bound[x]);
    var w = viewed(t, x, v, t.bound[x]);
    return (t.chance[x] ? "E " : "v ") + relation(w.bound) + " " + number(t, x, w.v, w.v !== v);
  }
  // A value as text: an exact fraction where the search gave one ("-17/3"), a margin signed ("+4").
  function number(t, x, v, negated) {
    var text = fmt(v), exact = t.exact[x];
    if (exact) text = negated ? (exact.charAt(0) === "-" ? exact.slice(1) : "-" + exact) : exact;
    return t.margin && state.view !== "maxmin" && v > 0 ? "+" + text : text;
  }
  // Each player's payoff, the mover's in brackets: "(3 [4] 3)".
  function payoffText(t, x) {
    var texts = t.payoffsText[x] || t.payoffs[x].map(fmt), m = moverOf(t, x);
    var b = t.bound[x] === "lower" ? "\u2265 " : t.bound[x] === "upper" ? "\u2264 " : "";
    return b + "(" + texts.map(function (s, i) { return i === m ? "[" + s + "]" : s; }).join(" ") + ")";
  }
  function moverOf(t, x) { return t.chance[x] || t.kind[x] === "terminal" || t.pruned[x] ? null : t.toMove[x]; }
  function probabilityText(t, x) {
    var p = t.probability[x];
    return p === null || p === undefined ? "" : "p = " + (t.probabilityText[x] || fmt(p));
  }
  function bestText(t, x, short) {
    var b = t.best[x];
    if (b === -Infinity) return "searching";
    var w = viewed(t, x, b, "exact");
    return (short ? "best " : "best so far ") + fmt(w.v);
  }
  function roleText(t, x) {
    var m = t.toMove[x];
    if (m === null || m === undefined) return "";
    if (t.chance[x]) return state.view === "maxmin" ? "CHANCE" : "chance";
    if (t.many) return t.kind[x] === "terminal" ? "" : t.players[m] === undefined ? String(m) : String(t.players[m]);
    if (state.view === "maxmin") return m === 0 ? "MAX" : "MIN";
    return t.players[m] === undefined ? String(m) : String(t.players[m]);
  }
  function nodeName(t, x) { return x === t.root ? "the root" : "<b>" + esc(t.path[x]) + "</b>"; }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (ch) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[ch]; }); }

  // ------------------------------------------------------------------------------------
  // Geometry
  function boardShape(t) {
    for (var i = 0; i < t.n; i++) {
      if (t.cells[i]) {
        var rows = String(t.cells[i]).split("\n");
        return { rows: rows.length, cols: rows[0].split("\t").length };
      }
    }
    return null;
  }

  function Panel(tree, box) {
    this.t = tree;
    this.box = box;
    var shape = boardShape(tree);
    this.shape = shape;
    this.measure();
    this.collapsed = new Uint8Array(tree.n);
    this.X = new Float64Array(tree.n);
    this.Y = new Float64Array(tree.n);
    this.level = new Int32Array(tree.n);  // depth below the root, as laid out
    this.placedK = null;                  // the zoom the depth coordinates were placed for
    this.moved = false;                   // the reader has panned or zoomed (else a resize fits again)
    this.labels = [];                     // the collapse counts drawn last, in canvas pixels
    this.shown = [];
    this.transform = d3.zoomIdentity;
    this.canvas = document.createElement("canvas");
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("aria-label", "search tree of " + tree.meta.algorithm);
    box.appendChild(this.canvas);
    this.ctx = this.canvas.getContext("2d");
    this.width = 0; this.height = 0;
    this.pending = false;
  }

  // A box's size, its board's and its fonts', in page pixels at zoom 1 (larger in projector mode).
  Panel.prototype.measure = function () {
    // (drawNode draws a box at its size at zoom 1, w0 by h0, scaled by f about its centre)
    var shape = this.shape, t = this.t, f = state.projector ? PROJECTOR_SCALE : 1;
    this.cell = shape ? Math.max(7, Math.min(15, Math.floor(90 / Math.max(shape.rows, shape.cols)))) : 0;
    var bw = shape ? shape.cols * this.cell : 0, bh = shape ? shape.rows * this.cell : 0;
    this.boardW = bw; this.boardH = bh;
    this.f = f;
    this.w0 = Math.max(bw + 12, t.position[t.root] && !shape ? 84 : 66);
    this.h0 = 4 + 13 + (shape ? bh + 3 : (t.position[t.root] ? 13 : 0)) + 13 + (t.prune ? 12 : 0) + 3;
    this.W = this.w0 * f; this.H = this.h0 * f;
  };

  Panel.prototype.collapseBeyond = function (limit) {
    var t = this.t, counts = new Array(t.maxDepth + 2).fill(0), i;
    for (i = 0; i < t.n; i++) counts[t.depth[i]] += 1;
    var total = 0, depth = -1;
    for (var d = 0; d <= t.maxDepth; d++) { if (total + counts[d] > limit) break; total += counts[d]; depth = d; }
    if (depth >= t.maxDepth) return;
    depth = Math.max(depth, 1);
    for (i = 0; i < t.n; i++) if (t.depth[i] === depth && t.kids[i].length) this.collapsed[i] = 1;
  };

  Panel.prototype.layout = function () {
    var t = this.t, collapsed = this.collapsed, kids = t.kids, self = this;
    var h = d3.hierarchy(t.root, function (x) { return collapsed[x] || !kids[x].length ? null : kids[x]; });
    var lr = state.orient === "lr";
    var f = this.f, across = lr ? this.H + 8 * f : this.W + 10 * f, down = lr ? this.W + 46 * f : this.H + 30 * f;
    d3.tree().nodeSize([across, down]).separation(function (a, b) { return a.parent === b.parent ? 1 : 1.25; })(h);
    var shown = [], a0 = Infinity, a1 = -Infinity, levels = 0;
    h.each(function (n) {
      var x = n.data;
      shown.push(x);
      self.level[x] = n.depth;
      if (lr) self.Y[x] = n.x; else self.X[x] = n.x;
      if (n.x < a0) a0 = n.x;
      if (n.x > a1) a1 = n.x;
      if (n.depth > levels) levels = n.depth;
    });
    this.shown = shown;
    this.leaves = h.leaves().length;
    this.down = down;
    this.levels = levels;
    this.acrossBounds = [a0, a1];
    this.placedK = null;
    this.placeDepth(this.transform.k);
  };

  // The smallest gap between two levels on the screen: when the tree is zoomed out further, its levels
  // keep this gap (they spread over the canvas) while the boxes and the gaps between siblings shrink.
  // Without it a tree of thousands of leaves, fitted, is a sliver a pixel wide.
  Panel.prototype.levelGap = function () {
    var room = (state.orient === "lr" ? this.width : this.height) - 2 * (state.orient === "lr" ? this.W : this.H);
    return Math.max(24, Math.min(this.down, room / Math.max(1, this.levels)));
  };
  // Place the levels for zoom k (each a gap of max(down, levelGap / k) from the next), and the bounds.
  Panel.prototype.placeDepth = function (k) {
    if (this.placedK === k) return;
    this.placedK = k;
    var gap = Math.max(this.down, this.levelGap() / k), lr = state.orient === "lr", shown = this.shown;
    for (var i = 0; i < shown.length; i++) {
      var x = shown[i];
      if (lr) this.X[x] = this.level[x] * gap; else this.Y[x] = this.level[x] * gap;
    }
    var a = this.acrossBounds, d = this.levels * gap;
    this.bounds = lr ? [-this.W, a[0] - this.H, d + this.W, a[1] + this.H] : [a[0] - this.W, -this.H, a[1] + this.W, d + this.H];
    this.quad = null;  // (built again when a node is looked up)
  };
  Panel.prototype.quadOf = function () {
    var self = this;
    if (!this.quad) this.quad = d3.quadtree().x(function (x) { return self.X[x]; }).y(function (x) { return self.Y[x]; }).addAll(this.shown);
    return this.quad;
  };

  Panel.prototype.resize = function () {
    var r = this.box.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    this.width = Math.max(1, r.width); this.height = Math.max(1, r.height);
    this.canvas.width = Math.round(this.width * dpr); this.canvas.height = Math.round(this.height * dpr);
    this.dpr = dpr;
  };

  // The zoom that shows the whole tree: its width across at most the canvas's, its levels (spaced as
  // placeDepth spaces them at that zoom) at most the canvas's depth.
  Panel.prototype.fitScale = function () {
    var lr = state.orient === "lr", a = this.acrossBounds, m = 8;
    var across = a[1] - a[0] + (lr ? this.H : this.W), depth = this.levels * this.down + (lr ? this.W : this.H);
    var k = Math.min(((lr ? this.height : this.width) - 2 * m) / across, ((lr ? this.width : this.height) - 2 * m) / depth, 1.6);
    return Math.max(k, MIN_ZOOM);
  };
  // The gap between two levels on the screen at zoom k (see placeDepth).
  Panel.prototype.screenGap = function (k) { return Math.max(k * this.down, this.levelGap()); };
  // The reader's zoom from prev to next (d3's, as if both directions scaled alike), with the depth direction
  // corrected: the level under the pointer stays under it although the levels' gap on the screen changes otherwise.
  Panel.prototype.keepDepth = function (prev, next, source) {
    var lr = state.orient === "lr", at = d3.pointer(source, this.canvas), m = lr ? at[0] : at[1];
    var from = lr ? prev.x : prev.y, g0 = this.screenGap(prev.k), g1 = this.screenGap(next.k);
    if (g0 === prev.k * this.down && g1 === next.k * this.down) return null;  // (both alike: d3's own)
    var d = m - (m - from) / g0 * g1;
    return lr ? d3.zoomIdentity.translate(d, next.y).scale(next.k) : d3.zoomIdentity.translate(next.x, d).scale(next.k);
  };
  Panel.prototype.setTransform = function (tr) {
    this.setting = true;
    try { d3.select(this.canvas).call(this.zoom.transform, tr); } finally { this.setting = false; }
  };
  Panel.prototype.fit = function () {
    var k = this.fitScale();
    this.placeDepth(k);
    var b = this.bounds, lr = state.orient === "lr";
    // (the bounds hold half a box of margin beyond the outer nodes; the level gap keeps a whole box of room)
    var dx = (this.width - k * (b[0] + b[2])) / 2, dy = (this.height - k * (b[1] + b[3])) / 2;
    if (lr) dx = Math.max(dx, this.W * k / 2 + 4); else dy = Math.max(dy, this.H * k / 2 + 4);
    this.setTransform(d3.zoomIdentity.translate(dx, dy).scale(k));
  };
  // The first view: the whole tree (boxes, blocks or dots by its size), except for a small tree drawn top-down
  // whose boxes would be too small to read fitted: its root at the top, at a legible size, the tree below it.
  Panel.prototype.home = function () {
    var k = this.fitScale();
    if (k * this.w0 >= 26 || state.orient === "lr") this.fit();
    else {
      k = 0.75;
      this.placeDepth(k);
      this.setTransform(d3.zoomIdentity.translate(this.width / 2 - this.X[this.t.root] * k, this.H * k / 2 + 8).scale(k));
    }
    this.moved = false;
  };
  Panel.prototype.inView = function (x, margin) {
    var tr = this.transform, X = tr.applyX(this.X[x]), Y = tr.applyY(this.Y[x]);
    return X > margin && X < this.width - margin && Y > margin && Y < this.height - margin;
  };
  Panel.prototype.centre = function (x) {
    var k = Math.max(this.transform.k, 0.5);
    this.placeDepth(k);  // (the levels' places at the new zoom)
    this.setTransform(d3.zoomIdentity.translate(this.width / 2 - this.X[x] * k, this.height / 2 - this.Y[x] * k).scale(k));
  };
  // Expand the collapsed ancestors of x; true if the layout changed.
  Panel.prototype.reveal = function (x) {
    var t = this.t, changed = false;
    for (var p = t.parent[x]; p >= 0; p = t.parent[p]) if (this.collapsed[p]) { this.collapsed[p] = 0; changed = true; }
    return changed;
  };
  // Relayout, keeping node x where it is on the screen.
  Panel.prototype.relayout = function (x) {
    var tr = this.transform, sx = tr.applyX(this.X[x]), sy = tr.applyY(this.Y[x]);
    this.layout();
    this.setTransform(d3.zoomIdentity.translate(sx - this.X[x] * tr.k, sy - this.Y[x] * tr.k).scale(tr.k));
  };
  Panel.prototype.toggle = function (x) {
    if (!this.t.kids[x].length) return;
    this.collapsed[x] = this.collapsed[x] ? 0 : 1;
    this.relayout(x);
  };
  Panel.prototype.nodeAt = function (mx, my) {
    var tr = this.transform, x = tr.invertX(mx), y = tr.invertY(my);
    var found = this.quadOf().find(x, y, Math.max(this.W, this.H));
    if (found === undefined) return null;
    return Math.abs(this.X[found] - x) <= this.W / 2 + 2 && Math.abs(this.Y[found] - y) <= this.H / 2 + 2 ? found : null;
  };

  Panel.prototype.request = function () {
    var self = this;
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(function () { self.pending = false; self.draw(); });
  };

  // ------------------------------------------------------------------------------------
  // Drawing
  function fillOf(t, x, status) {
    if (status === PRUNED) return COLOURS.prunedFill;
    if (status === ACTIVE) return COLOURS.active;
    if (status !== DONE) return null;
    var kind = t.kind[x], v = t.value[x];
    if (t.many) return kind === "terminal" ? COLOURS.draw : kind === "heuristic" ? COLOURS.heuristic : COLOURS.bound;
    if (kind === "terminal") return t.winner[x] === 0 ? COLOURS.win0 : t.winner[x] === 1 ? COLOURS.win1 : COLOURS.draw;
    if (kind === "heuristic") return COLOURS.heuristic;
    if (v === null || (t.bound[x] !== "exact" && t.bound[x] !== "estimate")) return COLOURS.bound;
    var u = sideSign(t, x) * v;
    return u > 0 ? COLOURS.lean0 : u < 0 ? COLOURS.lean1 : COLOURS.even;
  }

  Panel.prototype.draw = function () {
    var t = this.t, ctx = this.ctx, tr = this.transform, k = tr.k, W = this.W, H = this.H;
    this.placeDepth(k);
    this.labels = [];
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    ctx.translate(tr.x, tr.y);
    ctx.scale(k, k);
    var vx0 = tr.invertX(0) - W, vx1 = tr.invertX(this.width) + W, vy0 = tr.invertY(0) - H, vy1 = tr.invertY(this.height) + H;
    var shown = this.shown, X = this.X, Y = this.Y, status = t.status, parent = t.parent, i, x;
    var lr = state.orient === "lr", finished = state.step >= state.steps;
    // Edges, batched by style.
    var groups = { ghost: [], line: [], pruned: [], pv: [] };
    for (i = 0; i < shown.length; i++) {
      x = shown[i];
      var p = parent[x];
      if (p < 0) continue;
      var ax = X[p], ay = Y[p], bx = X[x], by = Y[x];
      if (Math.max(ax, bx) < vx0 || Math.min(ax, bx) > vx1 || Math.max(ay, by) < vy0 || Math.min(ay, by) > vy1) continue;
      var s = status[x];
      var g = s === FUTURE ? "ghost" : s === PRUNED ? "pruned" : finished && t.pv[x] && t.pv[p] ? "pv" : "line";
      groups[g].push(p, x);
    }
    var lw = (state.projector ? 2 : 1) * (this.detail() === "dots" ? 0.5 : 1);  // (thinner where thousands meet)
    var styles = { ghost: [COLOURS.ghost, lw, null], line: [COLOURS.line, lw, null], pruned: [COLOURS.pruned, lw, [4, 3]], pv: [COLOURS.pv, 2.5 * lw, null] };
    for (var name in groups) {
      var list = groups[name];
      if (!list.length) continue;
      ctx.beginPath();
      for (i = 0; i < list.length; i += 2) {
        var a = list[i], b = list[i + 1];
        if (lr) { ctx.moveTo(X[a] + W / 2, Y[a]); ctx.lineTo(X[b] - W / 2, Y[b]); }
        else { ctx.moveTo(X[a], Y[a] + H / 2); ctx.lineTo(X[b], Y[b] - H / 2); }
      }
      // (widths and dashes in screen pixels at every zoom: a fitted tree of thousands of nodes keeps its lines)
      var dash = (styles[name][2] || []).map(function (d) { return d / k; });
      ctx.strokeStyle = styles[name][0]; ctx.lineWidth = styles[name][1] / k; ctx.setLineDash(dash);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    // Nodes: full boxes when legible, coloured blocks when not, dots when smaller still.
    var lod = this.detail(), current = this.currentNode();
    if (lod === "boxes") this.drawChances(vx0, vx1, vy0, vy1);
    for (i = 0; i < shown.length; i++) {
      x = shown[i];
      if (X[x] < vx0 || X[x] > vx1 || Y[x] < vy0 || Y[x] > vy1) continue;
      if (lod === "boxes") this.drawNode(x, x === current);
      else if (lod === "blocks") this.drawBlock(x, x === current);
      else this.drawDot(x, x === current);
    }
  };

  // How nodes are drawn at this zoom: "boxes" (boards and values), "blocks" (coloured boxes) or "dots".
  Panel.prototype.detail = function () {
    var w = this.W * this.transform.k / this.f;
    return w >= 26 ? "boxes" : w >= 8 ? "blocks" : "dots";
  };
  // Where node x is drawn, in canvas pixels: [left, top, right, bottom].
  Panel.prototype.screenBox = function (x) {
    var tr = this.transform, lod = this.detail(), cx = tr.applyX(this.X[x]), cy = tr.applyY(this.Y[x]);
    if (lod === "dots") { var r = this.dotRadius(); return [cx - r, cy - r, cx + r, cy + r]; }
    var w = this.W * tr.k / 2, h = this.H * tr.k / 2;
    return [cx - w, cy - h, cx + w, cy + h];
  };
  Panel.prototype.dotRadius = function () {
    return Math.max(state.projector ? 2.5 : 1.75, Math.min(4, Math.min(this.W, this.H) * this.transform.k / 2));
  };

  // A node too small for a block: a dot of a few pixels in a strong colour of its value.
  Panel.prototype.drawDot = function (x, isCurrent) {
    var t = this.t, ctx = this.ctx, s = t.status[x], k = this.transform.k, r = this.dotRadius() / k;
    ctx.beginPath();
    ctx.arc(this.X[x], this.Y[x], r, 0, 2 * Math.PI);
    ctx.fillStyle = dotColour(t, x, s);
    ctx.fill();
    var line = isCurrent ? COLOURS.current : x === state.selected ? COLOURS.selected : s === DONE && t.pv[x] && state.step >= state.steps ? COLOURS.pv : null;
    if (line) { ctx.strokeStyle = line; ctx.lineWidth = 2 / k; ctx.beginPath(); ctx.arc(this.X[x], this.Y[x], r + 1.5 / k, 0, 2 * Math.PI); ctx.stroke(); }
  };

  Panel.prototype.currentNode = function () {
    var t = this.t;
    if (!t.replayable || t.applied <= 0 || state.step >= state.steps) return null;
    return t.evNode[t.applied - 1];
  };

  function dotColour(t, x, s) {
    if (s === FUTURE) return "rgba(0,0,0,0.22)";
    if (s === PRUNED) return COLOURS.pruned;
    if (s === ACTIVE) return COLOURS.activeLine;
    var fill = fillOf(t, x, s);
    return fill === COLOURS.win0 || fill === COLOURS.lean0 ? COLOURS.p0 : fill === COLOURS.win1 || fill === COLOURS.lean1 ? COLOURS.p1 :
      fill === COLOURS.heuristic ? "#e8a200" : fill === COLOURS.bound ? "#495057" : "#868e96";
  }

  Panel.prototype.drawBlock = function (x, isCurrent) {
    var t = this.t, ctx = this.ctx, s = t.status[x], W = this.W, H = this.H, k = this.transform.k;
    var fill = fillOf(t, x, s);
    ctx.fillStyle = fill || "rgba(0,0,0,0.06)";
    ctx.fillRect(this.X[x] - W / 2, this.Y[x] - H / 2, W, H);
    ctx.strokeStyle = s === FUTURE ? "rgba(0,0,0,0.12)" : "#adb5bd"; ctx.lineWidth = 1 / k;  // (white blocks on white)
    ctx.strokeRect(this.X[x] - W / 2, this.Y[x] - H / 2, W, H);
    var line = isCurrent ? COLOURS.current : x === state.selected ? COLOURS.selected : s === ACTIVE ? COLOURS.activeLine : s === DONE && t.pv[x] && state.step >= state.steps ? COLOURS.pv : null;
    if (!line && t.skipped && t.skipped[x] && s === DONE) line = COLOURS.skipped;  // (minimax beside alpha-beta)
    if (line) { ctx.strokeStyle = line; ctx.lineWidth = (isCurrent ? 4 : 2) / k; ctx.strokeRect(this.X[x] - W / 2, this.Y[x] - H / 2, W, H); }
  };

  // A node's box at its legible size (projector mode: larger, about its centre).
  Panel.prototype.drawNode = function (x, isCurrent) {
    var f = this.f, ctx = this.ctx, X = this.X[x], Y = this.Y[x], W = this.W, H = this.H;
    if (f === 1) return this.drawBox(x, isCurrent);
    ctx.save(); ctx.translate(X, Y); ctx.scale(f, f); ctx.translate(-X, -Y);
    this.W = this.w0; this.H = this.h0;
    try { this.drawBox(x, isCurrent); } finally { this.W = W; this.H = H; ctx.restore(); }
  };
  // A point drawn at (lx, ly) inside node x's box, in canvas pixels.
  Panel.prototype.boxPoint = function (x, lx, ly) {
    var f = this.f, tr = this.transform;
    return [tr.applyX(this.X[x] + f * (lx - this.X[x])), tr.applyY(this.Y[x] + f * (ly - this.Y[x]))];
  };

  Panel.prototype.drawBox = function (x, isCurrent) {
    var t = this.t, ctx = this.ctx, s = t.status[x], W = this.W, H = this.H;
    var left = this.X[x] - W / 2, top = this.Y[x] - H / 2, finished = state.step >= state.steps;
    var fill = fillOf(t, x, s);
    ctx.globalAlpha = s === FUTURE ? 0.35 : 1;
    ctx.beginPath();
    if (t.chance[x]) ctx.ellipse(this.X[x], this.Y[x], W / 2, H / 2, 0, 0, 2 * Math.PI);
    else ctx.rect(left, top, W, H);
    if (t.chance[x] && s === DONE) fill = COLOURS.chance;
    ctx.fillStyle = fill || "#ffffff";
    ctx.fill();
    var dashed = s === PRUNED || (this.t.skipped && this.t.skipped[x] && s === DONE);
    ctx.setLineDash(dashed ? [4, 3] : []);
    ctx.lineWidth = 1;
    ctx.strokeStyle = s === PRUNED ? COLOURS.pruned : this.t.skipped && this.t.skipped[x] && s === DONE ? COLOURS.skipped : s === FUTURE ? "#bbb" : "#777";
    if (s === ACTIVE) { ctx.strokeStyle = COLOURS.activeLine; ctx.lineWidth = 2; }
    if (s === DONE && finished && t.pv[x]) { ctx.strokeStyle = COLOURS.pv; ctx.lineWidth = 2; }
    ctx.stroke();
    ctx.setLineDash([]);
    if ((t.kind[x] === "cache" || t.kind[x] === "probe") && s === DONE) { ctx.lineWidth = 1; ctx.strokeRect(left + 2.5, top + 2.5, W - 5, H - 5); }
    if (isCurrent || x === state.selected) {
      ctx.strokeStyle = isCurrent ? COLOURS.current : COLOURS.selected; ctx.lineWidth = 3;
      ctx.strokeRect(left - 3, top - 3, W + 6, H + 6);
    }
    // Header: the move and the side to move.
    ctx.fillStyle = s === PRUNED ? COLOURS.note : COLOURS.text;
    ctx.textBaseline = "middle";
    ctx.font = "bold 11px system-ui, Helvetica, Arial, sans-serif";
    ctx.textAlign = "left";
    var head = x === t.root ? "root" : String(t.move[x]);
    if (t.chance[x]) { ctx.textAlign = "center"; ctx.fillText(fitText(ctx, head, W * 0.7), this.X[x], top + 12); }
    else ctx.fillText(fitText(ctx, head, W * 0.62), left + 4, top + 10);
    if (s !== PRUNED && !t.chance[x]) {
      ctx.font = "10px system-ui, Helvetica, Arial, sans-serif";
      ctx.textAlign = "right";
      ctx.fillStyle = COLOURS.note;
      ctx.fillText(roleText(t, x), left + W - 4, top + 10);
    }
    var y = top + 17;
    if (this.shape) {
      if (s !== PRUNED && t.cells[x]) this.drawBoard(x, this.X[x] - this.boardW / 2, y);
      y += this.boardH + 3;
    } else if (t.position[t.root]) {
      ctx.textAlign = "center"; ctx.fillStyle = COLOURS.note; ctx.font = "10px ui-monospace, Menlo, monospace";
      if (s !== PRUNED) ctx.fillText(String(t.position[x] || "").split("\n").join(" ").slice(0, 14), this.X[x], y + 6);
      y += 13;
    }
    ctx.textAlign = "center";
    ctx.font = "11px system-ui, Helvetica, Arial, sans-serif";
    ctx.fillStyle = COLOURS.text;
    var line = s === DONE ? valueText(t, x) : s === ACTIVE ? bestText(t, x, true) : s === PRUNED ? "pruned" : "";
    if (s === DONE && t.many && t.payoffs[x]) this.drawPayoffs(x, y + 6);
    else if (line) ctx.fillText(fitText(ctx, line, W - 4), this.X[x], y + 6);
    y += 13;
    if (t.windows && t.alpha[x] !== null && (s === DONE || s === ACTIVE)) {
      ctx.font = "10px system-ui, Helvetica, Arial, sans-serif";
      ctx.fillStyle = s === ACTIVE ? COLOURS.activeLine : COLOURS.note;
      ctx.fillText(windowText(viewWindow(t, x, t.windowOf(x))), this.X[x], y + 5);
    }
    if (t.cutoff[x] && (s === DONE || (s === ACTIVE && t.kids[x].some(function (c) { return t.status[c] === PRUNED; })))) {
      ctx.font = "bold 9px system-ui, Helvetica, Arial, sans-serif";
      ctx.fillStyle = COLOURS.pv;
      ctx.textAlign = "right";
      ctx.fillText("cut", left + W - 3, top + H - 6);
    }
    if (this.collapsed[x] && t.kids[x].length) {
      // The count of the hidden nodes, in the gap before the next level (where the collapsed children would be).
      ctx.font = "10px system-ui, Helvetica, Arial, sans-serif";
      ctx.fillStyle = COLOURS.selected;
      var count = "+" + (t.size[x] - 1).toLocaleString("en"), cw = ctx.measureText(count).width, lx, ly;
      if (state.orient === "lr") { ctx.textAlign = "left"; lx = left + W + 3; ly = this.Y[x]; }
      else { ctx.textAlign = "center"; lx = this.X[x]; ly = top + H + 9; }
      ctx.fillText(count, lx, ly);
      var l0 = state.orient === "lr" ? lx : lx - cw / 2, a = this.boxPoint(x, l0, ly - 6), b = this.boxPoint(x, l0 + cw, ly + 6);
      this.labels.push([x, a[0], a[1], b[0], b[1]]);
    }
    ctx.globalAlpha = 1;
  };

  // Each chance outcome's probability, on its edge ("p = 1/6").
  Panel.prototype.drawChances = function (vx0, vx1, vy0, vy1) {
    var t = this.t, ctx = this.ctx, X = this.X, Y = this.Y, W = this.W, H = this.H, lr = state.orient === "lr";
    ctx.font = "10px system-ui, Helvetica, Arial, sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    for (var i = 0; i < this.shown.length; i++) {
      var x = this.shown[i], p = t.parent[x], text = probabilityText(t, x);
      if (p < 0 || !text) continue;
      var mx = lr ? (X[p] + W / 2 + X[x] - W / 2) / 2 : (X[p] + X[x]) / 2, my = lr ? (Y[p] + Y[x]) / 2 : (Y[p] + H / 2 + Y[x] - H / 2) / 2;
      if (mx < vx0 || mx > vx1 || my < vy0 || my > vy1) continue;
      var w = ctx.measureText(text).width + 4;
      ctx.globalAlpha = t.status[x] === FUTURE ? 0.35 : 1;
      ctx.fillStyle = "rgba(255,255,255,0.85)"; ctx.fillRect(mx - w / 2, my - 6, w, 12);
      ctx.fillStyle = COLOURS.chanceLine; ctx.fillText(text, mx, my);
    }
    ctx.globalAlpha = 1;
  };

  // A payoff vector in cells, the mover's highlighted (games of three or more players).
  Panel.prototype.drawPayoffs = function (x, y) {
    var t = this.t, ctx = this.ctx, texts = t.payoffsText[x] || t.payoffs[x].map(fmt), m = moverOf(t, x);
    var cw = Math.min(22, (this.W - 8) / texts.length), x0 = this.X[x] - cw * texts.length / 2;
    ctx.font = "10px system-ui, Helvetica, Arial, sans-serif";
    texts.forEach(function (text, i) {
      if (i === m) { ctx.fillStyle = COLOURS.mover; ctx.fillRect(x0 + i * cw, y - 6, cw, 12); }
      ctx.strokeStyle = "#999"; ctx.lineWidth = 0.5; ctx.strokeRect(x0 + i * cw, y - 6, cw, 12);
      ctx.fillStyle = COLOURS.text; ctx.font = (i === m ? "bold " : "") + "10px system-ui, Helvetica, Arial, sans-serif";
      ctx.fillText(fitText(ctx, String(text), cw - 2), x0 + (i + 0.5) * cw, y);
    });
  };

  function fitText(ctx, text, width) {
    if (ctx.measureText(text).width <= width) return text;
    while (text.length > 1 && ctx.measureText(text + "\u2026").width > width) text = text.slice(0, -1);
    return text + "\u2026";
  }

  Panel.prototype.drawBoard = function (x, left, top) {
    var t = this.t, ctx = this.ctx, c = this.cell, rows = String(t.cells[x]).split("\n");
    var marks = {}, i;
    String(t.highlight[x] || "").split(" ").forEach(function (rc) { if (rc) marks[rc] = COLOURS.win; });
    if (t.last[x]) marks[t.last[x]] = marks[t.last[x]] || COLOURS.last;
    ctx.font = "bold " + Math.round(c * 0.78) + "px system-ui, Helvetica, Arial, sans-serif";
    ctx.textAlign = "center";
    for (var r = 0; r < rows.length; r++) {
      var cells = rows[r].split("\t");
      for (i = 0; i < cells.length; i++) {
        var bg = marks[r + "," + i];
        ctx.fillStyle = bg || "#ffffff";
        ctx.fillRect(left + i * c, top + r * c, c, c);
        var mark = cells[i];
        if (mark && mark !== "." && mark !== " ") {
          ctx.fillStyle = mark === String(t.players[0]) ? COLOURS.p0 : mark === String(t.players[1]) ? COLOURS.p1 : COLOURS.text;
          ctx.fillText(mark, left + i * c + c / 2, top + r * c + c / 2 + 1);
        }
      }
    }
    ctx.strokeStyle = "#999";
    ctx.lineWidth = 0.6;
    ctx.beginPath();
    for (r = 0; r <= rows.length; r++) { ctx.moveTo(left, top + r * c); ctx.lineTo(left + this.boardW, top + r * c); }
    for (i = 0; i <= this.shape.cols; i++) { ctx.moveTo(left + i * c, top); ctx.lineTo(left + i * c, top + this.boardH); }
    ctx.stroke();
  };

  // ------------------------------------------------------------------------------------
  // The page
  var trees = DATA.trees.map(function (d, i) { return new Tree(d, i); });
  var master = trees[0];
  for (var ti = 1; ti < trees.length; ti++) if (trees[ti].events > master.events) master = trees[ti];
  if (trees.length > 1) align();
  state.steps = master.events;

  // The other tree's events happen when the driving search reaches the same position.
  function align() {
    var enter = new Map(), leave = new Map(), e;
    for (e = 0; e < master.events; e++) {
      if (master.evKind[e] === ENTER) enter.set(master.path[master.evNode[e]], e + 1);
      else if (master.evKind[e] === LEAVE) leave.set(master.path[master.evNode[e]], e + 1);
    }
    trees.forEach(function (t) {
      if (t === master) return;
      var at = t.at = new Int32Array(t.events), prev = 0;
      for (e = 0; e < t.events; e++) {
        var path = t.path[t.evNode[e]], kind = t.evKind[e];
        var step = kind === ENTER ? enter.get(path) : kind === LEAVE ? leave.get(path) : prev;
        prev = at[e] = Math.max(prev, step === undefined ? prev : step);
      }
      // Minimax beside alpha-beta: mark what the pruning saved.
      if (master.meta.algorithm === "minimax" && t.prune) {
        var seen = new Set();
        for (var i = 0; i < t.n; i++) if (!t.pruned[i]) seen.add(t.path[i]);
        master.skipped = new Uint8Array(master.n);
        for (i = 0; i < master.n; i++) if (!seen.has(master.path[i])) master.skipped[i] = 1;
        t.savedCount = 0;
        for (i = 0; i < master.n; i++) t.savedCount += master.skipped[i];
      }
    });
  }
  function progressOf(t, step) {
    if (t === master || !t.at) return Math.min(step, t.events);
    var lo = 0, hi = t.events;  // events with at <= step
    while (lo < hi) { var mid = (lo + hi) >> 1; if (t.at[mid] <= step) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function h(tag, attrs, html) {
    var el = document.createElement(tag);
    for (var key in attrs || {}) el.setAttribute(key, attrs[key]);
    if (html !== undefined) el.innerHTML = html;
    return el;
  }

  app.innerHTML = "";
  var top = h("div", { class: "gt-top" });
  top.appendChild(h("h1", {}, esc(DATA.title)));
  var summary = h("div", { class: "gt-summary" });
  top.appendChild(summary);
  var controls = h("div", { class: "gt-controls", role: "toolbar", "aria-label": "replay" });
  var replay = master.replayable;
  if (replay) {
    controls.innerHTML =
      '<button data-act="start" title="first step (Home)">|&#9664;</button>' +
      '<button data-act="back" title="step back (Left arrow)">&#9664;</button>' +
      '<button data-act="play" title="play / pause (Space)" aria-pressed="false">play</button>' +
      '<button data-act="forward" title="step forward (Right arrow)">&#9654;</button>' +
      '<button data-act="end" title="last step (End)">&#9654;|</button>' +
      '<input class="gt-slider" type="range" min="0" step="1" aria-label="step">' +
      '<span class="gt-stepnum"></span>' +
      '<label>speed <select class="gt-speed" aria-label="steps per second">' +
      [1, 2, 5, 10, 30, 100, 1000].map(function (v) { return '<option value="' + v + '"' + (v === 5 ? " selected" : "") + ">" + v + "/s</option>"; }).join("") +
      "</select></label>";
  }
  controls.insertAdjacentHTML("beforeend",
    '<label>values <select class="gt-view" aria-label="values">' +
    Object.keys(VIEWS).map(function (v) { return '<option value="' + v + '"' + (v === state.view ? " selected" : "") + ">" + VIEWS[v] + "</option>"; }).join("") + "</select></label>" +
    '<button data-act="fit" title="the whole tree (F)">fit</button>' +
    '<button data-act="orient" title="top-down or left-right (O)">turn</button>' +
    '<button data-act="projector" title="large type and strong colours, for a projector (P)" aria-pressed="false">projector</button>' +
    '<button data-act="expand" title="expand every subtree">expand all</button>');
  top.appendChild(controls);
  var eventLine = h("div", { class: "gt-event", "aria-live": "polite" });
  if (replay) top.appendChild(eventLine);
  app.appendChild(top);
  var main = h("div", { class: "gt-main" });
  var panelsEl = h("div", { class: "gt-panels" });
  main.appendChild(panelsEl);
  var side = h("aside", { class: "gt-side" });
  var details = h("div", { class: "gt-details" }, '<h2>Node</h2><p class="gt-muted">Point at a node for its details; click to keep them, double-click to collapse or expand it.</p>');
  var stackEl = h("div", { class: "gt-stack" });
  side.appendChild(details);
  side.appendChild(stackEl);
  side.appendChild(legend());
  side.appendChild(h("div", { class: "gt-help" },
    "<h2>Keys</h2><kbd>\u2190</kbd> <kbd>\u2192</kbd> step, <kbd>Shift</kbd>+arrow: previous / next cutoff, <kbd>Home</kbd> <kbd>End</kbd>, " +
    "<kbd>Space</kbd> play / pause, <kbd>F</kbd> fit, <kbd>O</kbd> turn, <kbd>P</kbd> projector mode, <kbd>C</kbd> collapse the chosen node. Drag to pan, wheel to zoom. " +
    "The address ending <kbd>#step=N</kbd> opens this page at step N."));
  main.appendChild(side);
  app.appendChild(main);

  var panels = trees.map(function (t) {
    var wrap = h("div", { class: "gt-panel" });
    var title = h("div", { class: "gt-panel-title" });
    var box = h("div", { class: "gt-canvas-box" });
    wrap.appendChild(title);
    wrap.appendChild(box);
    panelsEl.appendChild(wrap);
    var p = new Panel(t, box);
    p.title = title;
    return p;
  });

  function legend() {
    var rows = [
      [COLOURS.win0, "first player (" + esc(trees[0].players[0]) + ") wins / is better"],
      [COLOURS.win1, "second player (" + esc(trees[0].players[1]) + ") wins / is better"],
      [COLOURS.draw, "draw"], [COLOURS.heuristic, "heuristic score (depth limit)"],
      [COLOURS.bound, "a bound only (the window cut the search short)"],
      [COLOURS.active, "being searched (orange frame: its window now)"],
      [COLOURS.prunedFill, "pruned: a cutoff left this move untried", "dashed"]
    ];
    var html = "<h2>Legend</h2>" + rows.map(function (r) {
      return '<div><span class="gt-swatch" style="background:' + r[0] + (r[2] ? ";border-style:dashed" : "") + '"></span>' + r[1] + "</div>";
    }).join("") +
      '<div><span class="gt-swatch" style="border:2px solid ' + COLOURS.pv + '"></span>principal variation (when the search is over)</div>' +
      '<div><span class="gt-swatch" style="border:3px solid ' + COLOURS.current + '"></span>the step\u2019s node</div>' +
      '<div><span class="gt-swatch" style="border:3px double #777"></span>answered from the cache</div>' +
      (trees.length > 1 ? '<div><span class="gt-swatch" style="border:1px dashed ' + COLOURS.skipped + '"></span>minimax: never visited by alpha-beta</div>' : "") +
      (trees.some(function (t) { return t.chance.some(Boolean); }) ? '<div><span class="gt-swatch" style="border-radius:50%;background:' + COLOURS.chance + '"></span>chance node: E, the expected value (the sum of p \u00d7 v); p = each outcome\u2019s probability</div>' : "") +
      (trees.some(function (t) { return t.many; }) ? '<div><span class="gt-swatch" style="background:' + COLOURS.mover + '"></span>(a [b] c): each player\u2019s payoff, the mover\u2019s highlighted</div>' : "") +
      (trees.some(function (t) { return t.kind.indexOf("probe") >= 0; }) ? "<div>double frame on a chance outcome: a Star2 probe (its first move only: a bound)</div>" : "") +
      (trees.some(function (t) { return t.margin; }) ? "<div>+4: a final margin (wins by 4; the negamax view)</div>" : "");
    return h("div", { class: "gt-legend" }, html);
  }

  function summaries() {
    var parts = trees.map(function (t) {
      var m = t.meta, visited = 0;
      for (var i = 0; i < t.n; i++) if (!t.pruned[i]) visited++;
      var text = "<b>" + esc(m.algorithm) + "</b>: " + visited.toLocaleString("en") + " positions";
      if (t.prune || m.cutoffs) text += ", " + (m.cutoffs || 0).toLocaleString("en") + " cutoffs";
      if (m.depth !== null && m.depth !== undefined) text += ", depth " + m.depth;
      if (t.prune) text += m.all_moves ? ", a full window for each root move" : ", one window from the root";
      if (t.prune && m.cache) text += ", transposition cache";
      if (t.savedCount !== undefined) text += " (" + t.savedCount.toLocaleString("en") + " of minimax\u2019s " + master.n.toLocaleString("en") + " never visited)";
      return text;
    });
    var t0 = trees[0];
    var result = esc(String(t0.meta.value)) + (t0.meta.pv && t0.meta.pv.length ? ", best play " + esc(t0.meta.pv.join(" ")) : "");
    summary.innerHTML = parts.join(" \u00b7 ") + " \u00b7 value: " + result;
    panels.forEach(function (p) { p.title.innerHTML = parts[p.t.index] + " <span class='gt-muted'>(" + p.shown.length.toLocaleString("en") + " shown)</span>"; });
  }

  // ------------------------------------------------------------------------------------
  // Replay
  function go(step, follow) {
    step = Math.max(0, Math.min(state.steps, Math.round(step)));
    state.step = step;
    trees.forEach(function (t) { t.progress(progressOf(t, step)); });
    if (follow) panels.forEach(function (p) {
      var x = p.currentNode();
      if (x === null) return;
      if (p.reveal(x)) p.relayout(x);
      if (!p.inView(x, 40)) p.centre(x);
    });
    page.setAttribute("data-gametree-step", String(step));
    if (replay) {
      slider.value = String(step);
      stepNum.textContent = "step " + step.toLocaleString("en") + " / " + state.steps.toLocaleString("en");
      eventLine.innerHTML = describeStep();
    }
    showStack();
    showDetails();
    panels.forEach(function (p) { p.request(); });
  }

  function describeStep() {
    if (state.step === 0) return "Before the search: press <b>play</b> or <kbd>\u2192</kbd> to watch it visit the positions one by one.";
    var texts = trees.map(function (t) {
      var label = trees.length > 1 ? "<b>" + esc(t.meta.algorithm) + "</b>: " : "";
      if (t.applied === 0) return label + "not started";
      var e = t.applied - 1, x = t.evNode[e], kind = t.evKind[e];
      if (t !== master && t.at[e] !== state.step) return label + "<span class='gt-muted'>(waits: nothing new here)</span>";
      return label + describeEvent(t, kind, x);
    });
    if (state.step >= state.steps) texts.push("the search is over: " + esc(String(master.meta.value)) + (master.meta.pv && master.meta.pv.length ? ", best play <b>" + esc(master.meta.pv.join(" ")) + "</b>" : ""));
    return texts.join("<br>");
  }

  function describeEvent(t, kind, x) {
    var who = roleText(t, x);
    if (kind === ENTER) {
      var w = t.windows && t.alpha[x] !== null ? " with window " + windowText(viewWindow(t, x, [t.alpha[x], t.beta[x]])) : "";
      var narrowed = t.prune && (t.searchAlpha[x] !== t.alpha[x] || t.searchBeta[x] !== t.beta[x]) && t.kind[x] === "searched"
        ? ", narrowed to " + windowText(viewWindow(t, x, [t.searchAlpha[x], t.searchBeta[x]])) + " (" + (t.cache[x] === "partial" ? "cache" : "no score beats winning at once") + ")" : "";
      var prob = probabilityText(t, x) ? ", " + probabilityText(t, x) : "";
      if (t.chance[x]) return "enter " + nodeName(t, x) + prob + " (a chance node: " + t.kids[x].length + " outcomes)" + w;
      return "enter " + nodeName(t, x) + prob + " (" + esc(who) + " to move)" + w + narrowed;
    }
    if (kind === CUTOFF) {
      var moves = t.kids[x].filter(function (c) { return t.pruned[c]; }).map(function (c) { return esc(t.move[c]); });
      var why = esc(t.cutoff[x]);
      if (state.view !== "negamax" && t.meta.algorithm === "alphabeta") {
        var b = t.searchBeta[x], v = t.best[x];
        why = sideSign(t, x) > 0 ? "\u03b2 cutoff at a MAX node: " + fmt(v) + " \u2265 \u03b2 = " + fmt(b) : "\u03b1 cutoff at a MIN node: " + fmt(-v) + " \u2264 \u03b1 = " + fmt(-b);
      }
      return "<span class='gt-cut'>cutoff</span> at " + nodeName(t, x) + ": " + why + "; " + (moves.length ? moves.join(", ") + (moves.length > 1 ? " are" : " is") + " pruned" : "no move left");
    }
    var text = nodeName(t, x) + " returns " + esc(valueText(t, x)) + (t.kind[x] !== "searched" ? " (" + esc(kindText(t, x)) + ")" : "");
    var p = t.parent[x];
    if (p >= 0 && t.prune && !(p === t.root && t.allMoves)) text += "; " + (p === t.root ? "the root" : esc(t.path[p])) + "\u2019s window is now " + windowText(viewWindow(t, p, t.windowOf(p)));
    return text;
  }

  function kindText(t, x) {
    var k = t.kind[x];
    if (k === "terminal") return "game over: " + (t.outcome[x] || "");
    if (k === "heuristic") return "heuristic score at the depth limit";
    if (k === "cache") return "answered from the transposition cache";
    if (k === "bound") return "settled by the score bound";
    if (k === "probe") return "a probe: its first move only, a bound";
    return k === "searched" ? "searched" : String(k);
  }

  function showStack() {
    if (!replay) return;
    var html = "";
    trees.forEach(function (t) {
      var x = t.applied > 0 && state.step < state.steps ? t.evNode[t.applied - 1] : -1;
      if (x >= 0 && t.status[x] !== ACTIVE) x = t.parent[x];
      var chain = [];
      for (; x >= 0; x = t.parent[x]) chain.unshift(x);
      html += "<h2>Search stack" + (trees.length > 1 ? " (" + esc(t.meta.algorithm) + ")" : "") + "</h2>";
      if (!chain.length) { html += "<p class='gt-muted'>" + (state.step >= state.steps ? "the search is over" : "empty") + "</p>"; return; }
      html += "<ol>" + chain.map(function (y) {
        var w = t.windowOf(y);
        return "<li>" + (y === t.root ? "root" : esc(t.move[y])) + " <span class='gt-muted'>" + esc(roleText(t, y)) + "</span> " +
          (w ? windowText(viewWindow(t, y, w)) + " " : "") + esc(bestText(t, y)) + "</li>";
      }).join("") + "</ol>";
    });
    stackEl.innerHTML = html;
  }

  function boardHtml(t, x) {
    if (!t.cells[x]) return t.position[x] ? "<div class='gt-position'>" + esc(t.position[x]) + "</div>" : "";
    var rows = String(t.cells[x]).split("\n"), win = {}, rl = t.meta.board_rows || [], cl = t.meta.board_columns || [];
    String(t.highlight[x] || "").split(" ").forEach(function (rc) { if (rc) win[rc] = 1; });
    var html = "<table class='gt-board'><tr><th></th>" + rows[0].split("\t").map(function (_, i) { return "<th>" + esc(cl[i] === undefined ? "" : cl[i]) + "</th>"; }).join("") + "</tr>";
    rows.forEach(function (row, r) {
      html += "<tr><th>" + esc(rl[r] === undefined ? "" : rl[r]) + "</th>" + row.split("\t").map(function (cell, i) {
        var cls = win[r + "," + i] ? "gt-win" : t.last[x] === r + "," + i ? "gt-last" : "";
        var who = cell === String(t.players[0]) ? "gt-p0" : cell === String(t.players[1]) ? "gt-p1" : "";
        return "<td class='" + cls + " " + who + "'>" + esc(cell) + "</td>";
      }).join("") + "</tr>";
    });
    return html + "</table>";
  }

  function showDetails() {
    var sel = state.hover || state.selected;
    if (!sel) return;
    var p = panels[sel.panel], t = p.t, x = sel.node, rows = [];
    var add = function (k, v) { if (v !== "" && v !== null && v !== undefined) rows.push("<tr><td>" + k + "</td><td>" + v + "</td></tr>"); };
    add("position", x === t.root ? "the root" : esc(t.path[x]));
    add("depth", t.depth[x]);
    if (t.pruned[x]) {
      add("pruned", esc(t.reason[x] || t.cutoff[t.parent[x]] || "cutoff"));
    } else {
      add("probability", probabilityText(t, x) ? esc(probabilityText(t, x).slice(4)) : "");
      add("to move", t.chance[x] ? "chance" : esc(String(t.players[t.toMove[x]])) + (state.view === "maxmin" && !t.many ? " (" + roleText(t, x) + ")" : ""));
      if (t.payoffs[x]) add("payoffs", esc(t.players.slice(0, t.payoffs[x].length).map(function (name, i) { return name + " " + (t.payoffsText[x] || t.payoffs[x].map(fmt))[i]; }).join(", ")));
      if (t.windows && t.alpha[x] !== null) {
        add("window on entry", windowText(viewWindow(t, x, [t.alpha[x], t.beta[x]])));
        if (t.searchAlpha[x] !== t.alpha[x] || t.searchBeta[x] !== t.beta[x]) add("searched with", windowText(viewWindow(t, x, [t.searchAlpha[x], t.searchBeta[x]])));
      }
      var bound = t.bound[x] === "lower" || t.bound[x] === "upper" ? " (" + viewed(t, x, 0, t.bound[x]).bound + " bound)" : "";
      add("value", esc(valueText(t, x)) + bound + (state.view !== "negamax" ? " <span class='gt-muted'>negamax " + fmt(t.value[x]) + "</span>" : ""));
      add("kind", esc(kindText(t, x)));
      add("cache", t.cache[x] ? esc(t.cache[x]) : "");
      add("cutoff", t.cutoff[x] ? esc(t.cutoff[x]) + " (" + t.kids[x].filter(function (c) { return t.pruned[c]; }).length + " pruned)" : "");
      add("visits", t.visits[x]);
      if (t.pv[x]) add("principal variation", "yes");
      if (t.skipped && t.skipped[x]) add("alpha-beta", "never visited this position");
    }
    add("at this step", STATUS_NAMES[t.status[x]] + (t.status[x] === ACTIVE && t.prune ? ", window now " + windowText(viewWindow(t, x, t.windowOf(x))) : ""));
    var toggle = t.kids[x].length ? "<button data-toggle='" + sel.panel + "," + x + "'>" + (p.collapsed[x] ? "expand" : "collapse") + " (" + (t.size[x] - 1).toLocaleString("en") + " below)</button>" : "";
    details.innerHTML = "<h2>" + (trees.length > 1 ? esc(t.meta.algorithm) + ": " : "") + (x === t.root ? "root" : "move " + esc(t.move[x])) + "</h2>" + boardHtml(t, x) + "<table>" + rows.join("") + "</table>" + toggle;
  }

  details.addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-toggle]");
    if (!b) return;
    var parts = b.getAttribute("data-toggle").split(",");
    panels[+parts[0]].toggle(+parts[1]);
    summaries();
    showDetails();
  });

  // Searches that have no replay (Monte Carlo) show their finished tree.
  var timer = null, lastTick = 0, carry = 0;
  function play(on) {
    state.playing = on && state.steps > 0;
    if (!replay) return;
    playButton.textContent = state.playing ? "pause" : "play";
    playButton.setAttribute("aria-pressed", String(state.playing));
    if (state.playing && state.step >= state.steps) go(0, true);
    if (state.playing && timer === null) { lastTick = performance.now(); carry = 0; timer = requestAnimationFrame(tick); }
  }
  function tick(now) {
    timer = null;
    if (!state.playing) return;
    carry += (now - lastTick) / 1000 * state.speed;
    lastTick = now;
    var n = Math.floor(carry);
    if (n > 0) { carry -= n; go(state.step + n, true); setHash(); }
    if (state.step >= state.steps) { play(false); return; }
    timer = requestAnimationFrame(tick);
  }
  function nextCutoff(direction) {
    var e = state.step + (direction > 0 ? 0 : -2);
    for (; e >= 0 && e < master.events; e += direction) if (master.evKind[e] === CUTOFF) return e + 1;
    // (alpha-beta beside minimax: its cutoffs, on the driving timeline)
    var other = trees.filter(function (t) { return t !== master && t.at; })[0];
    if (other) {
      var best = null;
      for (var i = 0; i < other.events; i++) {
        if (other.evKind[i] !== CUTOFF) continue;
        var s = other.at[i];
        if (direction > 0 && s > state.step && (best === null || s < best)) best = s;
        if (direction < 0 && s < state.step && (best === null || s > best)) best = s;
      }
      if (best !== null) return best;
    }
    return direction > 0 ? state.steps : 0;
  }
  function setHash() {
    try { history.replaceState(null, "", "#step=" + state.step); } catch (err) { /* (a sandboxed frame) */ }
  }
  function stepFromHash() {
    var m = /(?:^#|&)step=(\d+)/.exec(location.hash || "");
    return m ? +m[1] : null;
  }

  var slider = controls.querySelector(".gt-slider"), stepNum = controls.querySelector(".gt-stepnum");
  var playButton = controls.querySelector('[data-act="play"]');
  if (replay) {
    slider.max = String(state.steps);
    slider.addEventListener("input", function () { go(+slider.value, true); setHash(); });
    controls.querySelector(".gt-speed").addEventListener("change", function (ev) { state.speed = +ev.target.value; });
  }
  controls.querySelector(".gt-view").addEventListener("change", function (ev) { setView(ev.target.value); });
  controls.addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-act]");
    if (!b) return;
    act(b.getAttribute("data-act"));
  });
  function act(what) {
    if (what === "start") { play(false); go(0, true); setHash(); }
    else if (what === "back") { play(false); go(state.step - 1, true); setHash(); }
    else if (what === "forward") { play(false); go(state.step + 1, true); setHash(); }
    else if (what === "end") { play(false); go(state.steps, false); setHash(); }
    else if (what === "play") play(!state.playing);
    else if (what === "fit") panels.forEach(function (p) { p.fit(); });
    else if (what === "orient") { state.orient = state.orient === "lr" ? "td" : "lr"; panels.forEach(function (p) { p.layout(); p.home(); }); }
    else if (what === "projector") projector(!state.projector);
    else if (what === "expand") { panels.forEach(function (p) { p.collapsed.fill(0); p.layout(); p.home(); }); summaries(); }
  }
  // Projector mode: large type, larger boxes and boards, strong colours and lines (P).
  var PLAIN = Object.assign({}, COLOURS), STRONG = { line: "#343a40", text: "#000", note: "#212529", ghost: "rgba(0,0,0,0.3)", pruned: "#868e96" };
  function projector(on) {
    state.projector = !!on;
    Object.assign(COLOURS, PLAIN, on ? STRONG : {});
    app.classList.toggle("gt-projector", state.projector);
    var b = controls.querySelector('[data-act="projector"]');
    b.setAttribute("aria-pressed", String(state.projector));
    panels.forEach(function (p) { p.resize(); p.measure(); p.layout(); p.home(); });
  }
  function setView(view) {
    if (!VIEWS[view]) return;
    state.view = view;
    controls.querySelector(".gt-view").value = view;
    if (replay) eventLine.innerHTML = describeStep();
    showStack();
    showDetails();
    panels.forEach(function (p) { p.request(); });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.target && (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT") && ev.key !== " ") return;
    var handled = true;
    if (ev.key === "ArrowRight" && replay) { play(false); go(ev.shiftKey ? nextCutoff(1) : state.step + 1, true); setHash(); }
    else if (ev.key === "ArrowLeft" && replay) { play(false); go(ev.shiftKey ? nextCutoff(-1) : state.step - 1, true); setHash(); }
    else if (ev.key === "Home" && replay) act("start");
    else if (ev.key === "End" && replay) act("end");
    else if (ev.key === " " && replay) act("play");
    else if (ev.key === "f" || ev.key === "F") act("fit");
    else if (ev.key === "o" || ev.key === "O") act("orient");
    else if (ev.key === "p" || ev.key === "P") act("projector");
    else if ((ev.key === "c" || ev.key === "C") && state.selected) { panels[state.selected.panel].toggle(state.selected.node); summaries(); showDetails(); }
    else handled = false;
    if (handled) ev.preventDefault();
  });
  window.addEventListener("hashchange", function () { var s = stepFromHash(); if (s !== null && s !== state.step) go(s, true); });

  // ------------------------------------------------------------------------------------
  // Start
  var big = trees.reduce(function (n, t) { return Math.max(n, t.n); }, 0);
  panels.forEach(function (p) { if (p.t.n > FIRST_VISIBLE / trees.length) p.collapseBeyond(FIRST_VISIBLE / trees.length); });
  state.orient = "td";
  panels.forEach(function (p) { p.layout(); });
  if (panels.some(function (p) { return p.leaves > 40; })) { state.orient = "lr"; panels.forEach(function (p) { p.layout(); }); }
  panels.forEach(function (p, i) {
    p.resize();
    p.zoom = d3.zoom().scaleExtent([MIN_ZOOM, 4]).on("zoom", function (ev) {
      // (a transform set by the page during a wheel gesture carries the gesture's event: p.setting tells them apart)
      var reader = ev.sourceEvent && !p.setting;
      var kept = reader && ev.transform.k !== p.transform.k ? p.keepDepth(p.transform, ev.transform, ev.sourceEvent) : null;
      // (the corrected transform is stored where d3.zoomTransform reads it, so the gesture goes on from it)
      if (kept) p.canvas.__zoom = kept;
      p.transform = kept || ev.transform;
      p.placeDepth(ev.transform.k);
      if (reader) p.moved = true;  // (the reader's, not fit's)
      p.request();
    });
    d3.select(p.canvas).call(p.zoom).on("dblclick.zoom", null);
    p.home();
    p.canvas.addEventListener("mousemove", function (ev) {
      var r = p.canvas.getBoundingClientRect(), x = p.nodeAt(ev.clientX - r.left, ev.clientY - r.top);
      var was = state.hover;
      state.hover = x === null ? null : { panel: i, node: x };
      if (state.hover && (!was || was.node !== x || was.panel !== i)) showDetails();
      if (!state.hover && was) { showDetails(); }
    });
    p.canvas.addEventListener("mouseleave", function () { state.hover = null; showDetails(); });
    p.canvas.addEventListener("click", function (ev) {
      var r = p.canvas.getBoundingClientRect(), x = p.nodeAt(ev.clientX - r.left, ev.clientY - r.top);
      state.selected = x === null ? null : { panel: i, node: x };
      showDetails();
      panels.forEach(function (q) { q.request(); });
    });
    p.canvas.addEventListener("dblclick", function (ev) {
      var r = p.canvas.getBoundingClientRect(), x = p.nodeAt(ev.clientX - r.left, ev.clientY - r.top);
      if (x !== null) { p.toggle(x); summaries(); showDetails(); }
    });
    // (a notebook's frame often has its size only after the first drawing: fit again until the reader moves)
    if (window.ResizeObserver) new ResizeObserver(function () { p.resize(); if (!p.moved) p.home(); p.request(); }).observe(p.box);
  });
  var first = stepFromHash();
  go(first === null ? state.steps : first, first !== null);
  summaries();
  panels.forEach(function (p) { p.pending = false; p.draw(); });  // the first drawing, now

  // For tests and scripts.
  window.gametree = {
    steps: state.steps,
    step: function () { return state.step; },
    go: function (s) { play(false); go(s, true); return state.step; },
    view: function (v) { if (v !== undefined) setView(v); return state.view; },
    panels: function () { return trees.map(function (t) { return t.meta.algorithm; }); },
    status: function (i) { var t = trees[i || 0]; return Array.prototype.map.call(t.status, function (s) { return STATUS_NAMES[s]; }); },
    count: function (i, name) { var t = trees[i || 0], s = STATUS_NAMES.indexOf(name), n = 0; for (var j = 0; j < t.n; j++) if (t.status[j] === s) n++; return n; },
    window: function (i, x) { var t = trees[i || 0]; return t.windowOf(x); },
    parent: function (i, x) { return trees[i || 0].parent[x]; },
    screen: function (i, x) {  // where node x is drawn, in page pixels (null when it is hidden or out of view)
      var p = panels[i || 0];
      if (p.shown.indexOf(x) < 0 || !p.inView(x, 0)) return null;
      var r = p.canvas.getBoundingClientRect();
      return [r.left + p.transform.applyX(p.X[x]), r.top + p.transform.applyY(p.Y[x])];
    },
    fit: function () { act("fit"); },
    projector: function (on) { if (on !== undefined && !!on !== state.projector) act("projector"); return state.projector; },
    detail: function (i) { return panels[i || 0].detail(); },
    zoom: function (i) { return panels[i || 0].transform.k; },
    canvas: function (i) { var r = panels[i || 0].canvas.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; },
    boxes: function (i) {  // [node, left, top, right, bottom] in canvas pixels of each shown node in view
      var p = panels[i || 0], out = [];
      for (var j = 0; j < p.shown.length; j++) {
        var b = p.screenBox(p.shown[j]);
        if (b[2] >= 0 && b[0] <= p.width && b[3] >= 0 && b[1] <= p.height) out.push([p.shown[j]].concat(b));
      }
      return out;
    },
    labelled: function (i) { var p = panels[i || 0]; for (var j = 0; j < p.shown.length; j++) if (p.collapsed[p.shown[j]]) return p.shown[j]; return null; },
    labels: function (i) { return panels[i || 0].labels; },  // the collapse counts drawn: [node, left, top, right, bottom]
    draw: function () { panels.forEach(function (p) { p.pending = false; p.draw(); }); },
    zoomAt: function (i, x, k) { var p = panels[i || 0]; p.placeDepth(k); p.setTransform(d3.zoomIdentity.translate(p.width / 2 - p.X[x] * k, p.height / 2 - p.Y[x] * k).scale(k)); p.placeDepth(k); p.draw(); },
    details: function () { return details.textContent; },
    label: function (i, x) { var t = trees[i || 0]; return t.status[x] === DONE ? valueText(t, x) : t.status[x] === ACTIVE ? bestText(t, x) : t.status[x] === PRUNED ? "pruned" : ""; },
    event: function (i) { var t = trees[i || 0]; return t.applied > 0 ? { kind: ["enter", "cutoff", "leave"][t.evKind[t.applied - 1]], node: t.evNode[t.applied - 1] } : null; },
    text: function () { return eventLine.textContent; },
    shown: function (i) { return panels[i || 0].shown.length; },
    toggle: function (i, x) { panels[i || 0].toggle(x); summaries(); return panels[i || 0].shown.length; },
    skipped: function () { return master.skipped ? Array.prototype.slice.call(master.skipped) : null; },
    biggest: big
  };
  page.setAttribute("data-gametree-nodes", trees.map(function (t) { return t.n; }).join(" "));
  page.setAttribute("data-gametree-step", String(state.step));
  page.setAttribute("data-gametree-render-ms", String(Math.round(performance.now())));
  page.setAttribute("data-gametree-ready", "true");
})();
