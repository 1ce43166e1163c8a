/* evoonto visual explorer (self-contained, no dependencies).
 *
 * Reads the page model embedded by evoonto.viz.page (see evoonto/viz/data.py for its shape) and
 * renders: the Content graph as SVG with a small force layout, the record of the selected node,
 * the version history with per-version diffs highlighted on the graph, a score-per-round chart and
 * a label search. Every string from the data is inserted with textContent / createTextNode or as an
 * attribute value; no data string is ever parsed as HTML.
 */
(function () {
  'use strict';

  var SVGNS = 'http://www.w3.org/2000/svg';
  var DATA = JSON.parse(document.getElementById('evoonto-data').textContent);
  var NODES = DATA.nodes;
  var EDGES = DATA.edges;
  var HISTORY = DATA.history;
  var META = DATA.meta;
  var MAX_VISIBLE = Math.max(10, META.maxVisible || 300);
  // the start view when the graph exceeds the budget: entities (tables) and the relations between them
  var OVERVIEW = DATA.overview || { basis: null, nodes: [], terms: [], total: 0 };
  var OVERVIEW_TERMS = table({});
  OVERVIEW.nodes.forEach(function (i, k) { OVERVIEW_TERMS[i] = OVERVIEW.terms[k]; });
  /** render() focus that asks for the overview. */
  var TO_OVERVIEW = { overview: true };

  // ------------------------------------------------------------------ DOM helpers (text only)
  function setAttrs(node, attrs) {
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) { return; }
      if (/^on/i.test(name)) { throw new Error('event attributes are not allowed: ' + name); }
      if (name === 'text') { node.textContent = String(value); } else if (name === 'className') {
        node.setAttribute('class', value);
      } else { node.setAttribute(name, String(value)); }
    });
    return node;
  }
  function append(node, children) {
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) { return; }
      node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    });
    return node;
  }
  function h(tag, attrs, children) { return append(setAttrs(document.createElement(tag), attrs), children); }
  function s(tag, attrs, children) { return append(setAttrs(document.createElementNS(SVGNS, tag), attrs), children); }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } return node; }
  function $(id) { return document.getElementById(id); }
  function fmt(x, digits) { return (x === null || x === undefined) ? '–' : Number(x).toFixed(digits === undefined ? 3 : digits); }
  function plural(n, word) { return n.toLocaleString('en') + ' ' + word + (n === 1 ? '' : 's'); }
  /** A lookup table without a prototype, so data keys such as "constructor" find nothing built in. */
  function table(entries) { return Object.assign(Object.create(null), entries); }

  // ------------------------------------------------------------------ colours and styles
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
    '#9c755f', '#bab0ac', '#17becf', '#8c564b'];
  var KIND_COLORS = table({ Entity: '#4e79a7', Identifier: '#9c755f', Metric: '#e15759', Dimension: '#76b7b2',
    Category: '#59a14f', TimeDimension: '#edc948', Term: '#7f7f7f' });
  var FAMILY_COLORS = table({ mapping: '#8e96a3', constraint: '#d37295', evidence: '#c2a14a' });
  var FAMILY_NAMES = table({ term: 'Term', mapping: 'Mapping', constraint: 'Constraint', evidence: 'Evidence' });
  var EDGE_STYLES = table({
    derivation: { color: '#f28e2b', dash: null, arrow: true },
    association: { color: '#4e79a7', dash: null, arrow: false },
    hierarchy: { color: '#59a14f', dash: null, arrow: true },
    composition: { color: '#b07aa1', dash: '7 3', arrow: true },
    equivalence: { color: '#17becf', dash: '2 3', arrow: false },
    mapping: { color: '#b8bec8', dash: null, arrow: false, structural: true, label: 'has mapping' },
    constrains: { color: '#d37295', dash: '4 3', arrow: true, structural: true, label: 'constrains' },
    evidence: { color: '#c9b26b', dash: '1 3', arrow: false, structural: true, label: 'evidence' }
  });
  function hashColor(text) {
    var x = 0;
    for (var i = 0; i < text.length; i++) { x = (x * 31 + text.charCodeAt(i)) | 0; }
    return PALETTE[Math.abs(x) % PALETTE.length];
  }
  DATA.relationTypes.forEach(function (t) {
    if (!EDGE_STYLES[t.key]) { EDGE_STYLES[t.key] = { color: hashColor(t.key), dash: '5 2 1 2', arrow: t.directed }; }
    EDGE_STYLES[t.key].label = t.label;
    EDGE_STYLES[t.key].semantic = true;
  });
  function nodeColor(node) {
    if (node.family !== 'term') { return FAMILY_COLORS[node.family] || '#999'; }
    return KIND_COLORS[node.kind] || hashColor(node.kind);
  }
  function radius(node) { return node.family === 'term' ? 8 : 5; }

  // ------------------------------------------------------------------ indices
  var adjacency = NODES.map(function () { return []; });
  EDGES.forEach(function (e, i) { adjacency[e.source].push(i); adjacency[e.target].push(i); });
  var searchText = NODES.map(function (n) {
    return [n.label].concat(n.search || []).join('\u0001').toLowerCase();
  });
  var termDegree = NODES.map(function (n, i) {
    return adjacency[i].reduce(function (acc, ei) { return acc + (EDGE_STYLES[EDGES[ei].type].semantic ? 3 : 1); }, 0);
  });

  // ------------------------------------------------------------------ state
  var state = {
    satellites: true,
    visible: [],            // node indices currently drawn
    visibleSet: {},         // index -> true
    neighbourhood: null,    // focus node indices when a neighbourhood is drawn, else null
    overview: false,        // the entities overview is drawn
    selected: null,         // selected node index
    row: null,              // selected history row index
    pos: {},                // node index -> {x, y} (kept across re-renders)
    view: { k: 1, x: 0, y: 0 },
    userMoved: false,       // the user panned or zoomed: no automatic fit any more
    follow: null            // node index kept in the centre while the layout moves (after a search)
  };
  var els = { nodes: {}, edges: {} };
  var graph = $('graph');
  var viewport = null;

  function isSatellite(i) { return NODES[i].family !== 'term'; }
  function countAll() {
    if (state.satellites) { return NODES.length; }
    return NODES.filter(function (n) { return n.family === 'term'; }).length;
  }

  /** A focus for render(): the neighbourhood of `list`. It stays a neighbourhood view when one is
   *  shown (or `explicit`: "Explore from here"); it is limited to two hops when everything fits the
   *  budget or when asked explicitly (an entity with the Terms under it, not the budget's worth). */
  function around(list, explicit) {
    var copy = list.slice();
    copy.neighbourhood = !!explicit || !!state.neighbourhood;
    copy.depth = (explicit || countAll() <= MAX_VISIBLE) ? 2 : Infinity;
    return copy;
  }

  /** True when the graph does not fit the budget and has entities to show instead. */
  function overviewFirst() { return OVERVIEW.nodes.length > 0 && countAll() > MAX_VISIBLE; }

  /** Nodes to draw: everything when it fits the budget; else the entities overview (no focus, or
   *  TO_OVERVIEW); else a breadth-first neighbourhood of focus. */
  function chooseVisible(focus) {
    var allowed = function (i) { return state.satellites || !isSatellite(i); };
    state.overview = false;
    if (countAll() <= MAX_VISIBLE && !(focus && focus.neighbourhood)) {
      state.neighbourhood = null;
      return NODES.map(function (n, i) { return i; }).filter(allowed);
    }
    if (OVERVIEW.nodes.length && (!focus || focus.overview || !focus.length)) {
      state.neighbourhood = null;
      state.overview = true;
      return OVERVIEW.nodes.slice(0, MAX_VISIBLE);
    }
    if (focus && focus.overview) { focus = null; }
    var maxDepth = (focus && focus.depth) || Infinity;
    var roots = (focus && focus.length) ? focus.slice() : [bestRoot()];
    roots = roots.filter(allowed);
    if (!roots.length) { roots = [bestRoot()]; }
    var depth = {}, order = [], queue = [];
    roots.slice(0, MAX_VISIBLE).forEach(function (r) { if (depth[r] === undefined) { depth[r] = 0; order.push(r); queue.push(r); } });
    // breadth-first, semantic neighbours before satellites so Terms are not crowded out
    while (queue.length && order.length < MAX_VISIBLE) {
      var cur = queue.shift();
      if (depth[cur] >= maxDepth) { continue; }
      var next = adjacency[cur].map(function (ei) {
        var e = EDGES[ei];
        return { n: e.source === cur ? e.target : e.source, w: EDGE_STYLES[e.type].semantic ? 0 : 1 };
      }).sort(function (a, b) { return a.w - b.w; });
      for (var j = 0; j < next.length && order.length < MAX_VISIBLE; j++) {
        var n = next[j].n;
        if (depth[n] === undefined && allowed(n)) { depth[n] = depth[cur] + 1; order.push(n); queue.push(n); }
      }
    }
    state.neighbourhood = roots;
    return order;
  }
  function bestRoot() {
    var best = 0, score = -1;
    for (var i = 0; i < NODES.length; i++) {
      if (NODES[i].family === 'term' && termDegree[i] > score) { best = i; score = termDegree[i]; }
    }
    return best;
  }

  // ------------------------------------------------------------------ graph rendering
  function buildDefs() {
    var defs = s('defs');
    Object.keys(EDGE_STYLES).forEach(function (key, i) {
      var st = EDGE_STYLES[key];
      st.marker = 'arrow-' + i;
      defs.appendChild(s('marker', { id: st.marker, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7,
        markerHeight: 7, orient: 'auto-start-reverse', markerUnits: 'userSpaceOnUse' },
        [s('path', { d: 'M0,1 L9,5 L0,9 z', fill: st.color })]));
    });
    return defs;
  }
  function shapeFor(node) {
    var r = radius(node), color = nodeColor(node);
    if (node.family === 'mapping') {
      return s('rect', { className: 'shape', x: -r, y: -r, width: 2 * r, height: 2 * r, rx: 1.5, fill: color });
    }
    if (node.family === 'constraint') {
      var d = r + 1.5;
      return s('path', { className: 'shape', d: 'M0,' + (-d) + ' L' + d + ',0 L0,' + d + ' L' + (-d) + ',0 z', fill: color });
    }
    if (node.family === 'evidence') {
      var t = r + 1.5;
      return s('path', { className: 'shape', d: 'M0,' + (-t) + ' L' + t + ',' + (t * 0.8) + ' L' + (-t) + ',' + (t * 0.8) + ' z', fill: color });
    }
    return s('circle', { className: 'shape', r: r, fill: color });
  }

  function render(focus) {
    state.visible = chooseVisible(focus);
    state.visibleSet = {};
    state.visible.forEach(function (i) { state.visibleSet[i] = true; });
    clear(graph);
    graph.appendChild(buildDefs());
    viewport = s('g', { id: 'viewport' });
    var edgeLayer = s('g', { id: 'edges' });
    var nodeLayer = s('g', { id: 'nodes' });
    viewport.appendChild(edgeLayer);
    viewport.appendChild(nodeLayer);
    graph.appendChild(viewport);
    els = { nodes: {}, edges: {} };
    EDGES.forEach(function (e, i) {
      if (!state.visibleSet[e.source] || !state.visibleSet[e.target]) { return; }
      var st = EDGE_STYLES[e.type];
      var line = s('line', { className: 'edge ' + (st.structural ? 'structural' : 'semantic') + ' type-' + e.type,
        stroke: st.color, 'stroke-dasharray': st.dash, 'marker-end': st.arrow ? 'url(#' + st.marker + ')' : null,
        'data-edge': i });
      line.appendChild(s('title', { text: (st.label || e.type) + ': ' + NODES[e.source].label + ' → ' + NODES[e.target].label }));
      edgeLayer.appendChild(line);
      els.edges[i] = line;
    });
    state.visible.forEach(function (i) {
      var node = NODES[i];
      var g = s('g', { className: 'node fam-' + node.family + (isSatellite(i) ? ' sat' : '') + (node.deprecated ? ' deprecated' : ''),
        'data-index': i, 'data-family': node.family, tabindex: 0, role: 'button',
        'aria-label': FAMILY_NAMES[node.family] + ': ' + node.label });
      g.appendChild(s('circle', { className: 'halo', r: radius(node) + 5 }));
      g.appendChild(shapeFor(node));
      g.appendChild(s('text', { x: radius(node) + 4, y: 4, text: node.label.length > 48 ? node.label.slice(0, 47) + '…' : node.label }));
      var members = state.overview ? OVERVIEW_TERMS[i] : undefined;
      if (members) { g.appendChild(s('text', { className: 'members', x: radius(node) + 4, y: 4, dy: '1.3em', text: plural(members, 'Term') })); }
      g.appendChild(s('title', { text: node.label + ' (' + (node.family === 'term' ? node.kind : FAMILY_NAMES[node.family]) + ')' +
        (members ? ', ' + plural(members, 'Term') + ' under it' : '') }));
      nodeLayer.appendChild(g);
      els.nodes[i] = g;
    });
    if (!state.visible.length) {
      graph.appendChild(s('text', { className: 'empty-graph', x: '50%', y: '50%', 'text-anchor': 'middle',
        text: NODES.length ? 'Nothing to draw: turn the satellites on.' : 'The Content graph is empty: build the ontology first (evoonto build).' }));
    }
    markHubs();
    placeNew();
    updateNote();
    applyHighlight();
    startLayout();
  }

  /** The best-connected drawn Terms keep their labels when zoomed out (landmarks in a dense view). */
  function markHubs() {
    var degree = {};
    Object.keys(els.edges).forEach(function (key) {
      var e = EDGES[key];
      degree[e.source] = (degree[e.source] || 0) + 1;
      degree[e.target] = (degree[e.target] || 0) + 1;
    });
    if (state.overview) {  // every entity of the overview keeps its label
      state.visible.forEach(function (i) { els.nodes[i].classList.add('hub'); });
      return;
    }
    state.visible.filter(function (i) { return !isSatellite(i) && degree[i] >= 3; })
      .sort(function (a, b) { return degree[b] - degree[a]; })
      .slice(0, 12)
      .forEach(function (i) { els.nodes[i].classList.add('hub'); });
  }

  function updateNote() {
    var total = countAll();
    var note = $('view-note');
    if (state.overview) {
      var n = OVERVIEW.total;
      var what = OVERVIEW.basis === 'table' ? (n === 1 ? 'table' : 'tables') : (n === 1 ? 'entity' : 'entities');
      note.textContent = 'Overview: ' + (state.visible.length < n ? state.visible.length.toLocaleString('en') + ' of ' : '') +
        n.toLocaleString('en') + ' ' + what + ' (' + total.toLocaleString('en') +
        ' nodes in all) — search for any Term, or select one and “Explore from here”';
    } else if (state.neighbourhood) {
      var root = NODES[state.neighbourhood[0]];
      note.textContent = 'Showing ' + state.visible.length.toLocaleString('en') + ' of ' + total.toLocaleString('en') +
        ' nodes around “' + root.label + '”' + (state.neighbourhood.length > 1 ? ' and ' + (state.neighbourhood.length - 1) + ' more' : '') +
        ' — search or “Explore from here” to move';
    } else {
      note.textContent = plural(state.visible.length, 'node') + ' · drag to pan, scroll to zoom';
    }
    $('show-all').hidden = !(state.neighbourhood && total <= MAX_VISIBLE);
    $('overview').hidden = state.overview || !overviewFirst();
    graph.classList.toggle('dense', state.visible.length > 80);
    graph.setAttribute('data-visible', String(state.visible.length));
    graph.setAttribute('data-mode', state.overview ? 'overview' : state.neighbourhood ? 'neighbourhood' : 'all');
  }

  // deterministic pseudo-random numbers for initial positions
  var seed = 42;
  function rand() { seed = (seed * 1664525 + 1013904223) % 4294967296; return seed / 4294967296; }

  function placeNew() {
    var k = 0;
    state.visible.forEach(function (i) {
      if (state.pos[i] || isSatellite(i)) { return; }
      var r = 14 * Math.sqrt(0.5 + k), a = k * Math.PI * (3 - Math.sqrt(5));
      k++;
      state.pos[i] = { x: r * Math.cos(a), y: r * Math.sin(a) };
    });
    state.visible.forEach(function (i) {
      if (state.pos[i]) { return; }
      var owner = null;
      adjacency[i].forEach(function (ei) {
        var e = EDGES[ei], other = e.source === i ? e.target : e.source;
        if (owner === null && state.visibleSet[other] && state.pos[other]) { owner = state.pos[other]; }
      });
      var base = owner || { x: 0, y: 0 };
      state.pos[i] = { x: base.x + (rand() - 0.5) * 40, y: base.y + (rand() - 0.5) * 40 };
    });
  }

  // ------------------------------------------------------------------ force layout (d3-force style)
  // Springs on edges, pairwise repulsion (O(n^2), n bounded by the view budget), gravity; positions
  // live in typed arrays while the layout runs and are written back to state.pos on every draw.
  var layout = { alpha: 0, running: false, frame: null, n: 0, ticks: 0 };
  function startLayout() {
    var vis = state.visible, n = vis.length, local = {}, k;
    vis.forEach(function (i, j) { local[i] = j; });
    var L = { n: n, local: local, x: new Float64Array(n), y: new Float64Array(n), vx: new Float64Array(n),
      vy: new Float64Array(n), charge: new Float64Array(n), fixed: new Uint8Array(n) };
    for (k = 0; k < n; k++) {
      var p = state.pos[vis[k]];
      L.x[k] = p.x; L.y[k] = p.y; L.charge[k] = isSatellite(vis[k]) ? 12 : state.overview ? 600 : 40;  // overview: room for two-line labels
    }
    var keys = Object.keys(els.edges), deg = new Float64Array(n);
    L.ls = new Int32Array(keys.length); L.lt = new Int32Array(keys.length);
    L.len = new Float64Array(keys.length); L.strength = new Float64Array(keys.length);
    keys.forEach(function (key, j) {
      var e = EDGES[key];
      L.ls[j] = local[e.source]; L.lt[j] = local[e.target];
      L.len[j] = EDGE_STYLES[e.type].structural ? 34 : state.overview ? 170 : 90;
      deg[L.ls[j]]++; deg[L.lt[j]]++;
    });
    for (k = 0; k < keys.length; k++) { L.strength[k] = 1 / Math.min(deg[L.ls[k]], deg[L.lt[k]]); }
    var box = graph.getBoundingClientRect(), aspect = Math.min(3, Math.max(1 / 3, (box.width || 4) / (box.height || 3)));
    L.gx = 0.015 / aspect;
    L.gy = 0.015;
    L.alpha = 1; L.running = layout.running; L.frame = layout.frame; L.ticks = 0;
    layout = L;
    graph.setAttribute('data-layout', 'running');
    // settle most of the way synchronously (bounded work: at most ~300 ms), then animate the rest
    var started = performance.now();
    while (layout.alpha > 0.02 && performance.now() - started < 300) { tick(); }
    if (!state.userMoved) { draw(); fit(); } else if (state.follow !== null) { draw(); centerOn(state.follow); }
    draw();
    if (!layout.running) { layout.running = true; layout.frame = requestAnimationFrame(step); }
  }
  function step() {
    var started = performance.now();
    while (performance.now() - started < 16 && layout.alpha > 0.004) { tick(); }
    draw();
    if (layout.alpha > 0.004) { layout.frame = requestAnimationFrame(step); } else {
      layout.running = false;
      if (!state.userMoved) { fit(); }
      graph.setAttribute('data-layout', 'settled');
      graph.setAttribute('data-ticks', String(layout.ticks));
      graph.setAttribute('data-settled-ms', String(Math.round(performance.now())));  // read by benchmarks
    }
  }
  function reheat(alpha) {
    layout.alpha = Math.max(layout.alpha, alpha);
    graph.setAttribute('data-layout', 'running');
    if (!layout.running) { layout.running = true; layout.frame = requestAnimationFrame(step); }
  }
  function tick() {
    var L = layout, n = L.n, x = L.x, y = L.y, vx = L.vx, vy = L.vy, alpha = L.alpha, i, j, a, b, dx, dy, d2, f;
    for (i = 0; i < L.ls.length; i++) {                    // springs
      a = L.ls[i]; b = L.lt[i];
      dx = (x[b] + vx[b]) - (x[a] + vx[a]); dy = (y[b] + vy[b]) - (y[a] + vy[a]);
      var d = Math.sqrt(dx * dx + dy * dy) || 1e-3;
      f = (d - L.len[i]) / d * alpha * L.strength[i] * 0.35;
      dx *= f; dy *= f;
      vx[b] -= dx; vy[b] -= dy; vx[a] += dx; vy[a] += dy;
    }
    for (i = 0; i < n; i++) {                              // repulsion
      var xi = x[i], yi = y[i], ci = L.charge[i] * alpha, fx = 0, fy = 0;
      for (j = i + 1; j < n; j++) {
        dx = x[j] - xi; dy = y[j] - yi; d2 = dx * dx + dy * dy;
        if (d2 > 250000) { continue; }
        if (d2 < 1) { dx = rand() - 0.5; dy = rand() - 0.5; d2 = 1; }
        f = 1 / d2;
        vx[j] += dx * f * ci; vy[j] += dy * f * ci;
        fx -= dx * f * L.charge[j]; fy -= dy * f * L.charge[j];
      }
      vx[i] += fx * alpha; vy[i] += fy * alpha;
    }
    for (i = 0; i < n; i++) {                              // gravity (stronger across the short side), integration
      if (L.fixed[i]) { vx[i] = vy[i] = 0; continue; }
      vx[i] = (vx[i] - x[i] * L.gx * alpha) * 0.6; vy[i] = (vy[i] - y[i] * L.gy * alpha) * 0.6;
      x[i] += vx[i]; y[i] += vy[i];
    }
    L.alpha += (0 - L.alpha) * 0.0228;
    L.ticks++;
  }
  function draw() {
    state.visible.forEach(function (i, k) {
      var p = state.pos[i];
      p.x = layout.x[k]; p.y = layout.y[k];
      els.nodes[i].setAttribute('transform', 'translate(' + p.x.toFixed(1) + ',' + p.y.toFixed(1) + ')');
    });
    if (state.follow !== null && state.visibleSet[state.follow]) { centerOn(state.follow); }
    Object.keys(els.edges).forEach(function (key) {
      var e = EDGES[key], line = els.edges[key], p = state.pos[e.source], q = state.pos[e.target];
      var dx = q.x - p.x, dy = q.y - p.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
      var rs = radius(NODES[e.source]) + 1, rt = radius(NODES[e.target]) + 2;
      line.setAttribute('x1', (p.x + dx / d * rs).toFixed(1));
      line.setAttribute('y1', (p.y + dy / d * rs).toFixed(1));
      line.setAttribute('x2', (q.x - dx / d * rt).toFixed(1));
      line.setAttribute('y2', (q.y - dy / d * rt).toFixed(1));
    });
  }

  // ------------------------------------------------------------------ pan, zoom, drag
  function applyView() {
    graph.classList.toggle('zoomed-out', state.view.k < 0.8);
    graph.style.setProperty('--zoom', String(Math.max(state.view.k, 0.05)));  // labels keep their screen size
    if (viewport) {
      viewport.setAttribute('transform', 'translate(' + state.view.x.toFixed(1) + ',' + state.view.y.toFixed(1) + ') scale(' + state.view.k.toFixed(4) + ')');
    }
  }
  function fit() {
    if (!state.visible.length) { applyView(); return; }
    var box = graph.getBoundingClientRect();
    var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    state.visible.forEach(function (i) {
      var p = state.pos[i];
      minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x + 60); minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y);
    });
    var pad = 24, w = Math.max(box.width, 100), hgt = Math.max(box.height, 100);
    var k = Math.min((w - 2 * pad) / Math.max(maxX - minX, 1), (hgt - 2 * pad) / Math.max(maxY - minY, 1), 2);
    k = Math.max(k, 0.08);
    state.view = { k: k, x: w / 2 - k * (minX + maxX) / 2, y: hgt / 2 - k * (minY + maxY) / 2 };
    applyView();
  }
  function centerOn(i) {
    var p = state.pos[i], box = graph.getBoundingClientRect();
    if (!p) { return; }
    state.view.x = box.width / 2 - state.view.k * p.x;
    state.view.y = box.height / 2 - state.view.k * p.y;
    applyView();
  }
  function toGraph(evt) {
    var box = graph.getBoundingClientRect();
    return { x: (evt.clientX - box.left - state.view.x) / state.view.k, y: (evt.clientY - box.top - state.view.y) / state.view.k };
  }
  var drag = null;
  graph.addEventListener('pointerdown', function (evt) {
    var target = evt.target.closest ? evt.target.closest('g.node') : null;
    drag = { x: evt.clientX, y: evt.clientY, moved: false, node: target ? Number(target.getAttribute('data-index')) : null,
      view: { x: state.view.x, y: state.view.y } };
    if (drag.node === null) { graph.classList.add('panning'); }
    graph.setPointerCapture(evt.pointerId);
  });
  graph.addEventListener('pointermove', function (evt) {
    if (!drag) { return; }
    var dx = evt.clientX - drag.x, dy = evt.clientY - drag.y;
    if (!drag.moved && dx * dx + dy * dy < 16) { return; }
    drag.moved = true;
    state.userMoved = true;
    state.follow = null;
    if (drag.node === null) {
      state.view.x = drag.view.x + dx; state.view.y = drag.view.y + dy; applyView();
    } else {
      var k = layout.local[drag.node], g = toGraph(evt);
      layout.x[k] = g.x; layout.y[k] = g.y; layout.fixed[k] = 1;
      reheat(0.15);
      draw();
    }
  });
  function endDrag(evt) {
    if (!drag) { return; }
    graph.classList.remove('panning');
    if (drag.moved && drag.node !== null) { layout.fixed[layout.local[drag.node]] = 0; }
    if (!drag.moved && evt.type === 'pointerup') {
      if (drag.node !== null) { selectNode(drag.node); } else { selectNode(null); }
    }
    drag = null;
  }
  graph.addEventListener('pointerup', endDrag);
  graph.addEventListener('pointercancel', endDrag);
  graph.addEventListener('wheel', function (evt) {
    evt.preventDefault();
    var box = graph.getBoundingClientRect();
    var mx = evt.clientX - box.left, my = evt.clientY - box.top;
    var k = Math.min(8, Math.max(0.05, state.view.k * Math.exp(-evt.deltaY * 0.0015)));
    state.view.x = mx - (mx - state.view.x) * k / state.view.k;
    state.view.y = my - (my - state.view.y) * k / state.view.k;
    state.view.k = k;
    state.userMoved = true;
    state.follow = null;
    applyView();
  }, { passive: false });
  graph.addEventListener('keydown', function (evt) {
    var target = evt.target.closest ? evt.target.closest('g.node') : null;
    if (target && (evt.key === 'Enter' || evt.key === ' ')) {
      evt.preventDefault();
      selectNode(Number(target.getAttribute('data-index')));
    }
  });

  // ------------------------------------------------------------------ highlight
  function applyHighlight() {
    var hotNodes = {}, hotEdges = {}, diff = state.row !== null ? HISTORY[state.row].diff : null;
    if (state.selected !== null) {
      hotNodes[state.selected] = 'selected';
      adjacency[state.selected].forEach(function (ei) {
        var e = EDGES[ei];
        hotEdges[ei] = true;
        var other = e.source === state.selected ? e.target : e.source;
        if (!hotNodes[other]) { hotNodes[other] = 'neighbor'; }
      });
    }
    var added = {}, removed = {}, addedEdges = {}, removedEdges = {};
    if (diff) {
      diff.nodesAdded.forEach(function (i) { added[i] = true; });
      diff.nodesRemoved.forEach(function (i) { removed[i] = true; });
      diff.edgesAdded.forEach(function (i) { addedEdges[i] = true; });
      diff.edgesRemoved.forEach(function (i) { removedEdges[i] = true; });
    }
    if (state.selected !== null && els.nodes[state.selected]) {   // drawn last, so its label is on top
      els.nodes[state.selected].parentNode.appendChild(els.nodes[state.selected]);
    }
    Object.keys(els.nodes).forEach(function (key) {
      var cls = els.nodes[key].classList;
      cls.toggle('selected', hotNodes[key] === 'selected');
      cls.toggle('neighbor', hotNodes[key] === 'neighbor');
      cls.toggle('diff-add', !!added[key] && !removed[key]);
      cls.toggle('diff-del', !!removed[key] && !added[key]);
      cls.toggle('diff-mod', !!added[key] && !!removed[key]);
      cls.toggle('focus-root', !!state.neighbourhood && state.neighbourhood.indexOf(Number(key)) >= 0);
    });
    Object.keys(els.edges).forEach(function (key) {
      var cls = els.edges[key].classList;
      cls.toggle('hot', !!hotEdges[key]);
      cls.toggle('diff-add', !!addedEdges[key]);
      cls.toggle('diff-del', !!removedEdges[key] && !addedEdges[key]);
    });
    graph.classList.toggle('dimmed', state.selected !== null || !!diff);
  }

  // ------------------------------------------------------------------ record panel
  function showTab(name) {
    $('tab-record').classList.toggle('active', name === 'record');
    $('tab-diff').classList.toggle('active', name === 'diff');
    $('record').hidden = name !== 'record';
    $('diff').hidden = name !== 'diff';
  }
  $('tab-record').addEventListener('click', function () { showTab('record'); });
  $('tab-diff').addEventListener('click', function () { showTab('diff'); });

  function refButton(i, text) {
    var b = h('button', { type: 'button', className: 'ref', 'data-node': i, text: text || NODES[i].label });
    b.addEventListener('click', function () { focusNode(i); });
    return b;
  }
  function fieldList(fields) {
    var dl = h('dl', { className: 'fields' });
    fields.forEach(function (f) {
      dl.appendChild(h('dt', { text: f[0] }));
      dl.appendChild(h('dd', {}, f[1].map(function (v) {
        if (v !== null && typeof v === 'object') { return h('span', { className: 'value' }, [refButton(v.ref, v.text)]); }
        return h('span', { className: 'value', text: v });
      })));
    });
    return dl;
  }
  function kindBadge(node) {
    return h('span', { className: 'badge', text: node.family === 'term' ? node.kind : FAMILY_NAMES[node.family] });
  }
  function placeholder() {
    var box = clear($('record'));
    var c = META.counts;
    box.appendChild(h('div', { className: 'placeholder' }, [
      overviewFirst() ? h('p', { text: 'The graph opens on its ' + (OVERVIEW.basis === 'table' ? 'tables' : 'entities') +
        ' and the relations between them. Type in the search box to find any Term, or select an entity and use ' +
        '“Explore from here” to see the Terms under it; “Overview” comes back here.' }) : null,
      h('p', { text: 'Click a node to see its record: labels, definition, Mappings, Evidence values, Constraints and IRI.' }),
      h('p', { text: 'Select a row of the version history to highlight what that patch added (green) or removed (red).' }),
      h('p', { text: plural(c.term, 'Term') + ', ' + plural(c.mapping, 'Mapping') + ', ' + plural(c.constraint, 'Constraint') +
        ', ' + c.evidence.toLocaleString('en') + ' Evidence records, ' + plural(c.relation, 'relation') + '.' })
    ]));
  }
  function showRecord(i) {
    var node = NODES[i], box = clear($('record'));
    var swatch = h('span', { className: 'swatch' });
    swatch.style.background = nodeColor(node);
    box.appendChild(h('div', { className: 'record-head' }, [swatch, h('h2', { text: node.label }), kindBadge(node),
      node.deprecated ? h('span', { className: 'badge deprecated', text: 'deprecated' }) : null]));
    box.appendChild(h('div', { className: 'iri mono', text: node.iri }));
    var explore = h('button', { type: 'button', text: 'Explore from here' });
    explore.addEventListener('click', function () { render(around([i], true)); selectNode(i); });
    var center = h('button', { type: 'button', text: 'Center' });
    center.addEventListener('click', function () { centerOn(i); });
    box.appendChild(h('div', { className: 'actions' }, [center, explore]));
    box.appendChild(fieldList(node.fields));
    var rels = adjacency[i].filter(function (ei) { return EDGE_STYLES[EDGES[ei].type].semantic; });
    if (rels.length) {
      box.appendChild(h('div', { className: 'section-title', text: 'Relations' }));
      box.appendChild(h('ul', { className: 'relations' }, rels.map(function (ei) {
        var e = EDGES[ei], st = EDGE_STYLES[e.type], out = e.source === i;
        var tag = h('span', { className: 'rtype', text: st.label });
        tag.style.background = st.color;
        var details = e.fields.filter(function (f) { return f[0] !== 'relation IRI'; }).map(function (f) {
          return h('span', { className: 'rdetail', text: f[0] + ': ' + f[1].map(function (v) {
            return (v !== null && typeof v === 'object') ? NODES[v.ref].label : v;
          }).join(', ') });
        });
        return h('li', {}, [tag, h('span', { text: out ? '→' : '←' }), refButton(out ? e.target : e.source)].concat(details));
      })));
    }
    if (node.sections.length) {
      box.appendChild(h('div', { className: 'section-title', text: 'Linked records' }));
      node.sections.forEach(function (j) {
        var sub = NODES[j];
        box.appendChild(h('div', { className: 'card' }, [
          h('h3', {}, [kindBadge(sub), refButton(j)]), fieldList(sub.fields)]));
      });
    }
    showTab('record');
  }

  function selectNode(i) {
    state.selected = (i === null || i === undefined) ? null : i;
    if (state.selected === null) { placeholder(); } else { showRecord(state.selected); }
    applyHighlight();
  }
  /** Select a node, first bringing it into view (turning satellites on or moving the neighbourhood). */
  function focusNode(i) {
    if (isSatellite(i) && !state.satellites) { state.satellites = true; $('show-satellites').checked = true; render(null); }
    if (!state.visibleSet[i]) { render(around([i])); }
    selectNode(i);
    state.view.k = Math.max(state.view.k, 1.2);
    state.follow = i;
    state.userMoved = true;
    centerOn(i);
  }

  // ------------------------------------------------------------------ history and diff
  function decisionBadge(decision) { return h('span', { className: 'badge ' + decision, text: decision }); }
  function buildHistory() {
    var body = $('history').tBodies[0];
    clear(body);
    if (!HISTORY.length) {
      body.appendChild(h('tr', { className: 'empty-row' }, [h('td', { colspan: 9, text: 'No evolution rounds yet: this is the base version.' })]));
      return;
    }
    HISTORY.forEach(function (row, r) {
      var delta = (row.parentScore !== null && row.candidateScore !== null) ? row.candidateScore - row.parentScore : null;
      var tr = h('tr', { tabindex: 0, 'data-row': r, 'data-patch': row.id }, [
        h('td', { text: row.round }),
        h('td', { text: row.version !== null ? 'v' + row.version : (row.parentVersion !== null ? '(from v' + row.parentVersion + ')' : '–') }),
        h('td', { text: row.level || '–' }),
        h('td', { className: 'sig', title: row.intervention || '', text: row.signature || row.intervention || row.id }),
        h('td', { className: 'num', text: fmt(row.parentScore) }),
        h('td', { className: 'num', text: fmt(row.candidateScore) }),
        h('td', { className: 'num ' + (delta > 0 ? 'delta-pos' : delta < 0 ? 'delta-neg' : ''), text: delta === null ? '–' : (delta > 0 ? '+' : '') + delta.toFixed(3) }),
        h('td', {}, [decisionBadge(row.decision)]),
        h('td', { className: 'num mono', text: '+' + row.diff.added + ' / −' + row.diff.removed })
      ]);
      tr.addEventListener('click', function () { selectRow(r); });
      tr.addEventListener('keydown', function (evt) { if (evt.key === 'Enter' || evt.key === ' ') { evt.preventDefault(); selectRow(r); } });
      body.appendChild(tr);
    });
  }
  function selectRow(r) {
    state.row = r;
    Array.prototype.forEach.call($('history').tBodies[0].rows, function (tr) {
      tr.classList.toggle('selected', Number(tr.getAttribute('data-row')) === r);
    });
    Array.prototype.forEach.call(document.querySelectorAll('#chart .point'), function (p) {
      p.classList.toggle('selected', Number(p.getAttribute('data-row')) === r);
    });
    if (r === null) { diffPlaceholder(); applyHighlight(); return; }
    var diff = HISTORY[r].diff;
    var touched = diff.nodesAdded.concat(diff.nodesRemoved);
    diff.edgesAdded.concat(diff.edgesRemoved).forEach(function (ei) { touched.push(EDGES[ei].source, EDGES[ei].target); });
    var missing = touched.filter(function (i) { return !state.visibleSet[i]; });
    if (missing.length && (state.neighbourhood || missing.some(isSatellite))) {
      if (!state.satellites && missing.some(isSatellite)) { state.satellites = true; $('show-satellites').checked = true; }
      render(around(touched));
    }
    state.selected = null;
    applyHighlight();
    showDiff(r);
  }
  function diffPlaceholder() {
    clear($('diff')).appendChild(h('p', { className: 'placeholder',
      text: HISTORY.length ? 'Select a row of the version history (or a point of the chart) to see its diff.' :
        'No patches yet: the workspace is at its base version.' }));
  }
  function showDiff(r) {
    var row = HISTORY[r], diff = row.diff, box = clear($('diff'));
    box.appendChild(h('div', { className: 'record-head' }, [
      h('h2', { text: 'Round ' + row.round + (row.version !== null ? ' · version ' + row.version : '') }), decisionBadge(row.decision)]));
    box.appendChild(h('div', { className: 'iri mono', text: row.patch || row.id }));
    var fields = [['patch', [row.id]], ['level', [row.level || '–']], ['signature', [row.signature || '–']],
      ['intervention', [row.intervention || '–']], ['parent score', [fmt(row.parentScore)]],
      ['candidate score', [fmt(row.candidateScore)]],
      ['parent version', [row.parentVersion !== null ? 'v' + row.parentVersion : '–']]];
    if (row.time) { fields.push(['time', [row.time]]); }
    box.appendChild(fieldList(fields));
    var graphs = Object.keys(diff.byGraph).map(function (g) {
      return g + ' +' + diff.byGraph[g][0] + '/−' + diff.byGraph[g][1];
    }).join(', ');
    box.appendChild(h('div', { className: 'diff-summary' }, [
      h('span', { className: 'add', text: '+' + diff.added + ' added' }), ' · ',
      h('span', { className: 'del', text: '−' + diff.removed + ' removed' }), graphs ? ' (' + graphs + ')' : '',
      diff.added + diff.removed === 0 ? ' — no patch graphs were found for this row.' : '']));
    if (diff.added + diff.removed > 0) {
      var onGraph = diff.nodesAdded.length + diff.nodesRemoved.length + diff.edgesAdded.length + diff.edgesRemoved.length;
      box.appendChild(h('div', { className: 'placeholder', text: onGraph ? 'Highlighted on the graph: green = added, red = removed, orange = both.' :
        'This patch touches no node drawn in the Content graph (e.g. tool or schema level).' }));
    }
    var term = function (text, ref, cls) {
      return ref !== null && ref !== undefined ? refButton(ref, text) : h('span', { className: cls, text: text });
    };
    box.appendChild(h('ul', { className: 'triples' }, diff.triples.map(function (t) {
      return h('li', { className: t[0] === '+' ? 'add' : 'del' }, [
        h('span', { className: 'op', text: t[0] === '+' ? '+' : '−' }),
        h('span', { className: 'triple' }, [term(t[2], t[5], 's'), ' ', h('span', { className: 'p mono', text: t[3] }), ' ',
          term(t[4], t[6], 'o'), ' ', h('span', { className: 'g', text: t[1] })])]);
    })));
    var shown = diff.triples.length, total = diff.added + diff.removed;
    if (total > shown) { box.appendChild(h('div', { className: 'more', text: 'and ' + (total - shown).toLocaleString('en') + ' more triples' })); }
    showTab('diff');
  }

  // ------------------------------------------------------------------ score chart
  function buildChart() {
    var chart = clear($('chart'));
    var W = 420, H = 200, L = 40, R = 12, T = 26, B = 30;
    var rows = HISTORY.map(function (row, r) { return { row: row, r: r }; });
    var scores = [];
    rows.forEach(function (x) {
      if (x.row.parentScore !== null) { scores.push(x.row.parentScore); }
      if (x.row.candidateScore !== null) { scores.push(x.row.candidateScore); }
    });
    if (!scores.length) {
      chart.appendChild(s('text', { className: 'empty', x: W / 2, y: H / 2, 'text-anchor': 'middle', text: 'No scored rounds yet.' }));
      return;
    }
    var lo = Math.min.apply(null, scores), hi = Math.max.apply(null, scores);
    var pad = Math.max((hi - lo) * 0.15, 0.01);
    lo -= pad; hi += pad;
    var n = rows.length;
    var x = function (k) { return L + (n === 1 ? (W - L - R) / 2 : (W - L - R) * k / (n - 1)); };
    var y = function (v) { return T + (H - T - B) * (1 - (v - lo) / (hi - lo)); };
    var decimals = Math.min(4, Math.max(2, Math.ceil(-Math.log10((hi - lo) / 4))));
    for (var g = 0; g <= 4; g++) {
      var v = lo + (hi - lo) * g / 4;
      chart.appendChild(s('line', { className: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      chart.appendChild(s('text', { x: L - 5, y: y(v) + 3, 'text-anchor': 'end', text: v.toFixed(decimals) }));
    }
    chart.appendChild(s('line', { className: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
    var step = Math.max(1, Math.ceil(n / 10));
    rows.forEach(function (item, k) {
      if (k % step === 0 || k === n - 1) {
        chart.appendChild(s('text', { x: x(k), y: H - B + 13, 'text-anchor': 'middle', text: String(item.row.round) }));
      }
    });
    chart.appendChild(s('text', { x: (L + W - R) / 2, y: H - 3, 'text-anchor': 'middle', text: 'round' }));
    // score of the active version after each round: the candidate's if accepted, else the parent's
    var points = [], current = null;
    rows.forEach(function (item, k) {
      var row = item.row;
      if (row.decision === 'accepted' && row.candidateScore !== null) { current = row.candidateScore; } else if (row.parentScore !== null) { current = row.parentScore; }
      if (current !== null) { points.push(x(k).toFixed(1) + ',' + y(current).toFixed(1)); }
    });
    if (points.length) { chart.appendChild(s('polyline', { className: 'active-line', points: points.join(' ') })); }
    var colors = { accepted: '#20a35a', rejected: '#d64545', invalid: '#9aa3af' };
    rows.forEach(function (item, k) {
      var row = item.row;
      if (row.candidateScore === null) { return; }
      var dot = s('circle', { className: 'point', cx: x(k), cy: y(row.candidateScore), r: 5, fill: colors[row.decision] || '#9aa3af',
        'data-row': item.r });
      dot.appendChild(s('title', { text: 'round ' + row.round + ': ' + row.decision + ', candidate ' + fmt(row.candidateScore) +
        ' vs parent ' + fmt(row.parentScore) + (row.signature ? ' — ' + row.signature : '') }));
      dot.addEventListener('click', function () { selectRow(item.r); });
      chart.appendChild(dot);
    });
    var lx = L + 2, ly = 9;
    [['active version', null], ['accepted', colors.accepted], ['rejected', colors.rejected]].forEach(function (entry, k) {
      var ox = lx + k * 92;
      if (entry[1] === null) {
        chart.appendChild(s('line', { className: 'active-line', x1: ox, x2: ox + 14, y1: ly, y2: ly }));
      } else {
        chart.appendChild(s('circle', { cx: ox + 7, cy: ly, r: 4, fill: entry[1] }));
      }
      chart.appendChild(s('text', { x: ox + 18, y: ly + 3, text: entry[0] }));
    });
  }

  // ------------------------------------------------------------------ search
  var results = $('search-results'), input = $('search'), hits = [], active = -1;
  function runSearch() {
    var q = input.value.trim().toLowerCase();
    clear(results);
    hits = []; active = -1;
    if (!q) { results.hidden = true; return; }
    for (var i = 0; i < NODES.length; i++) {
      var at = searchText[i].indexOf(q);
      if (at < 0) { continue; }
      var label = NODES[i].label.toLowerCase();
      var rank = label === q ? 0 : label.indexOf(q) === 0 ? 1 : label.indexOf(q) >= 0 ? 2 : 3;
      hits.push({ i: i, rank: rank * 2 + (isSatellite(i) ? 1 : 0) });
    }
    hits.sort(function (a, b) { return a.rank - b.rank || NODES[a.i].label.length - NODES[b.i].label.length; });
    var total = hits.length;
    hits = hits.slice(0, 30);
    hits.forEach(function (hit, k) {
      var node = NODES[hit.i];
      var swatch = h('span', { className: 'swatch' });
      swatch.style.background = nodeColor(node);
      var li = h('li', { role: 'option', 'data-node': hit.i }, [swatch, h('span', { text: node.label }),
        h('span', { className: 'sub', text: node.family === 'term' ? node.kind : FAMILY_NAMES[node.family] })]);
      li.addEventListener('mousedown', function (evt) { evt.preventDefault(); pick(k); });
      results.appendChild(li);
    });
    if (!hits.length) { results.appendChild(h('li', { className: 'empty', text: 'No label matches.' })); }
    else if (total > hits.length) { results.appendChild(h('li', { className: 'empty', text: (total - hits.length) + ' more — refine the query' })); }
    results.hidden = false;
  }
  function pick(k) {
    if (!hits[k]) { return; }
    results.hidden = true;
    focusNode(hits[k].i);
  }
  function moveActive(delta) {
    if (!hits.length) { return; }
    active = (active + delta + hits.length) % hits.length;
    Array.prototype.forEach.call(results.children, function (li, k) { li.classList.toggle('active', k === active); });
  }
  var timer = null;
  input.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(runSearch, 80); });
  input.addEventListener('keydown', function (evt) {
    if (evt.key === 'Enter') { clearTimeout(timer); runSearch(); pick(active >= 0 ? active : 0); evt.preventDefault(); }
    else if (evt.key === 'ArrowDown') { moveActive(1); evt.preventDefault(); }
    else if (evt.key === 'ArrowUp') { moveActive(-1); evt.preventDefault(); }
    else if (evt.key === 'Escape') { results.hidden = true; }
  });
  input.addEventListener('blur', function () { setTimeout(function () { results.hidden = true; }, 150); });
  input.addEventListener('focus', function () { if (input.value.trim()) { runSearch(); } });

  // ------------------------------------------------------------------ header, legend, toolbar
  function buildHeader() {
    $('title').textContent = META.title;
    $('title').setAttribute('title', (META.base || META.title) + ' · page generated ' + META.generated);
    var c = META.counts, stats = clear($('stats'));
    var items = [[c.term, 'Terms'], [c.mapping, 'Mappings'], [c.constraint, 'Constraints'], [c.evidence, 'Evidence'],
      [c.relation, 'relations']];
    if (META.version !== null && META.version !== undefined) { items.unshift(['v' + META.version, 'active']); }
    var accepted = HISTORY.filter(function (r) { return r.decision === 'accepted'; }).length;
    if (HISTORY.length) { items.push([accepted + '/' + HISTORY.length, 'patches accepted']); }
    items.forEach(function (it) {
      stats.appendChild(h('span', {}, [h('b', { text: typeof it[0] === 'number' ? it[0].toLocaleString('en') : it[0] }), ' ' + it[1]]));
    });
  }
  function buildLegend() {
    var legend = clear($('legend'));
    var kinds = Object.create(null), edgeTypes = Object.create(null);
    NODES.forEach(function (n) { var k = n.family === 'term' ? n.kind : n.family; kinds[k] = n; });
    EDGES.forEach(function (e) { edgeTypes[e.type] = true; });
    Object.keys(kinds).sort(function (a, b) {
      return (kinds[a].family === 'term' ? 0 : 1) - (kinds[b].family === 'term' ? 0 : 1) || a.localeCompare(b);
    }).forEach(function (k) {
      var node = kinds[k], icon = s('svg', { width: 14, height: 14, viewBox: '-7 -7 14 14' }, [shapeFor(node)]);
      legend.appendChild(h('span', { className: 'item' }, [icon, node.family === 'term' ? k : FAMILY_NAMES[node.family]]));
    });
    legend.appendChild(h('span', { className: 'sep' }));
    Object.keys(EDGE_STYLES).filter(function (k) { return edgeTypes[k]; }).forEach(function (k) {
      var st = EDGE_STYLES[k];
      var icon = s('svg', { width: 26, height: 10 }, [s('line', { x1: 1, x2: 25, y1: 5, y2: 5, stroke: st.color,
        'stroke-width': 2, 'stroke-dasharray': st.dash })]);
      legend.appendChild(h('span', { className: 'item' }, [icon, st.label || k]));
    });
  }
  $('show-satellites').addEventListener('change', function (evt) {
    state.satellites = evt.target.checked;
    if (!state.satellites && state.selected !== null && isSatellite(state.selected)) { state.selected = null; placeholder(); }
    render(state.neighbourhood ? around(state.neighbourhood) : state.overview ? TO_OVERVIEW : null);
  });
  $('fit').addEventListener('click', function () { state.userMoved = false; state.follow = null; fit(); });
  $('show-all').addEventListener('click', function () { render(null); });
  $('overview').addEventListener('click', function () { render(TO_OVERVIEW); });
  $('clear').addEventListener('click', function () { selectRow(null); selectNode(null); });
  window.addEventListener('resize', function () { if (!state.userMoved) { fit(); } });

  // ------------------------------------------------------------------ start
  buildHeader();
  buildLegend();
  buildHistory();
  buildChart();
  placeholder();
  diffPlaceholder();
  render(null);
  if (state.overview) { input.focus(); }  // a large graph: search is the way in
})();
