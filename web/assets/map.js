// The concept map: concepts sized by PageRank and coloured by community,
// laid out by the server (graph.Layout, in Go), drawn here on a 2D canvas.
//
// Drawing: a full render strokes the edges (up to ~100k) into an offscreen
// layer at the current view and draws it, the nodes and the labels on the
// canvas. While the view moves (drag, wheel, keys), a frame only moves and
// scales the canvas element (a CSS transform: the compositor's work, no
// drawing), and the canvas is rendered afresh at the new view once the view
// has been still for IDLE_MS. So a pan or zoom frame costs no drawing at
// all, whatever the number of edges.
"use strict";

window.noemaMap = (() => {
  const IDLE_MS = 150;
  // EDGE_BUDGET bounds the edges a render strokes: the heaviest among those
  // with both ends on screen (all of the selected concept's besides). At
  // the overview of 2,500 concepts and 100k edges the lightest are a grey
  // veil; zoomed in, few edges are on screen and all are drawn.
  const EDGE_BUDGET = 30000;
  const WORLD = 500; // layout coordinates [-1, 1] → world units
  const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#17becf"];
  const colour = (c) => c < PALETTE.length ? PALETTE[c] : `hsl(${(c * 137.508) % 360}, 55%, 55%)`;

  // metrics are read by the end-to-end test and shown in the panel.
  const metrics = { startMs: 0, requestMs: 0, firstPaintMs: 0, nodes: 0, edges: 0, drawMs: [], edgeLayerMs: [], moveFrames: 0 };

  async function show(container, params, api) {
    const { call, el, contextHref, errorBox } = api;
    const t0 = performance.now();
    metrics.startMs = t0;
    metrics.firstPaintMs = 0;
    metrics.edgeLayerMs = [];
    const canvas = el("canvas", { id: "map-canvas", tabindex: "0", role: "img", "aria-label": "Concept map: drag to pan, wheel or + and - to zoom, click a concept to select it, Enter to open its context" });
    const highlight = el("input", { id: "map-highlight", type: "search", placeholder: "highlight concepts…" });
    const community = el("select", { id: "map-community" }, el("option", { value: "" }, "all communities"));
    const hood = el("input", { id: "map-hood", type: "checkbox" });
    const reset = el("button", { type: "button", id: "map-reset" }, "Fit to view");
    const info = el("div", { id: "map-info", class: "map-info", "aria-live": "polite" }, "Click a concept.");
    const stats = el("p", { id: "map-stats", class: "muted" }, "Loading the map…");
    const bar = el("form", { class: "map-bar", onsubmit: (e) => e.preventDefault(), "aria-label": "Map controls" },
      el("label", { for: "map-highlight" }, "Highlight"), highlight,
      el("label", { for: "map-community" }, "Community"), community,
      el("label", { for: "map-hood" }, hood, " only the selected concept's neighbourhood"), reset);
    const wrap = el("div", { class: "map-wrap" }, canvas, info);
    container.append(el("h1", { class: "sr" }, "Concept map"), bar, stats, wrap);

    let data;
    try {
      data = await call("graph map", { limit: 3000 });
    } catch (err) {
      stats.replaceWith(errorBox(err));
      return () => {};
    }
    metrics.requestMs = performance.now() - t0;

    // The graph as flat arrays.
    let n = 0, ids = [], labels = [], rank = [], comm = [], degree = [];
    let wx = new Float32Array(0), wy = new Float32Array(0);
    const index = new Map();
    let ea = [], eb = [], ew = [];
    const edgeKeys = new Set();
    function addNodes(nodes, place) {
      const nx = new Float32Array(n + nodes.length), ny = new Float32Array(n + nodes.length);
      nx.set(wx); ny.set(wy);
      const added = [];
      nodes.forEach((d, k) => {
        if (index.has(d.id)) { added.push(index.get(d.id)); return; }
        const i = n++;
        index.set(d.id, i);
        ids.push(d.id); labels.push(d.label); rank.push(d.rank); comm.push(d.community); degree.push(d.degree);
        const [x, y] = place(d, k);
        nx[i] = x; ny[i] = y;
        added.push(i);
      });
      wx = nx.slice(0, n); wy = ny.slice(0, n);
      return added;
    }
    function addEdges(edges, local) {
      for (const [a, b, w] of edges) {
        const i = local[a], j = local[b];
        const key = i < j ? i * 1048576 + j : j * 1048576 + i;
        if (edgeKeys.has(key)) continue;
        edgeKeys.add(key);
        ea.push(i); eb.push(j); ew.push(w);
      }
    }
    const local0 = addNodes(data.nodes, (d) => [d.x * WORLD, d.y * WORLD]);
    addEdges(data.edges, local0);
    // The edges, heaviest first, for the budget of a render.
    let byWeight = new Int32Array(0);
    function sortEdges() {
      byWeight = Int32Array.from(ea.keys()).sort((x, y) => ew[y] - ew[x]);
    }
    sortEdges();
    let maxRank = rank.reduce((m, r) => Math.max(m, r), 1e-9);

    // Communities for the filter.
    function fillCommunities() {
      const sizes = new Map();
      for (const c of comm) sizes.set(c, (sizes.get(c) || 0) + 1);
      const cur = community.value;
      community.replaceChildren(el("option", { value: "" }, "all communities"),
        [...sizes.entries()].sort((a, b) => a[0] - b[0]).map(([c, s]) => el("option", { value: String(c) }, `#${c} (${s} on the map)`)));
      community.value = cur;
    }
    fillCommunities();

    // View: screen = world * scale + (tx, ty).
    const ctx = canvas.getContext("2d", { alpha: false });
    const layer = document.createElement("canvas");
    const lctx = layer.getContext("2d");
    let W = 0, H = 0, dpr = window.devicePixelRatio || 1;
    let scale = 1, tx = 0, ty = 0;
    let layerView = null; // {scale, tx, ty} the edge layer was drawn at
    let selected = -1, visible = new Uint8Array(n), matched = null;
    let dirty = true, lastMove = 0, raf = 0, idleTimer = 0, settle = false;
    let full = true; // the next frame must render (not only move the canvas)
    let rendered = null; // {scale, tx, ty} the canvas was rendered at

    function resize() {
      W = Math.max(200, canvas.clientWidth); H = Math.max(200, canvas.clientHeight);
      dpr = window.devicePixelRatio || 1;
      for (const c of [canvas, layer]) { c.width = Math.round(W * dpr); c.height = Math.round(H * dpr); }
      layerView = null;
      request();
    }
    function fit() {
      let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
      for (let i = 0; i < n; i++) if (visible[i]) {
        minX = Math.min(minX, wx[i]); maxX = Math.max(maxX, wx[i]);
        minY = Math.min(minY, wy[i]); maxY = Math.max(maxY, wy[i]);
      }
      if (!isFinite(minX)) { minX = -WORLD; maxX = WORLD; minY = -WORLD; maxY = WORLD; }
      const span = Math.max(maxX - minX, maxY - minY, 1);
      scale = Math.min(W, H) * 0.9 / span;
      tx = W / 2 - (minX + maxX) / 2 * scale;
      ty = H / 2 - (minY + maxY) / 2 * scale;
      layerView = null;
      request();
    }
    function radius(i) {
      return 2 + Math.sqrt(rank[i] / maxRank) * 16 * Math.min(2.5, Math.max(0.6, Math.sqrt(scale)));
    }

    function computeVisible() {
      visible = new Uint8Array(n);
      const c = community.value === "" ? -1 : Number(community.value);
      let hoodSet = null;
      if (hood.checked && selected >= 0) {
        hoodSet = new Set([selected]);
        for (let k = 0; k < ea.length; k++) {
          if (ea[k] === selected) hoodSet.add(eb[k]);
          else if (eb[k] === selected) hoodSet.add(ea[k]);
        }
      }
      let count = 0;
      for (let i = 0; i < n; i++) {
        const ok = (c < 0 || comm[i] === c) && (!hoodSet || hoodSet.has(i));
        visible[i] = ok ? 1 : 0;
        count += visible[i];
      }
      layerView = null;
      return count;
    }
    function computeMatched() {
      const text = highlight.value.trim().toLowerCase();
      matched = null;
      if (!text) return;
      matched = new Uint8Array(n);
      for (let i = 0; i < n; i++) if (labels[i].toLowerCase().includes(text)) matched[i] = 1;
    }

    // The edge layer, at the current view.
    function drawEdgeLayer() {
      const t = performance.now();
      lctx.setTransform(1, 0, 0, 1, 0, 0);
      lctx.clearRect(0, 0, layer.width, layer.height);
      lctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      lctx.lineWidth = 0.6;
      lctx.strokeStyle = matched ? "rgba(90,90,110,0.05)" : "rgba(90,90,110,0.12)";
      lctx.beginPath();
      const m = ea.length;
      let drawn = 0;
      for (let q = 0; q < m && drawn < EDGE_BUDGET; q++) {
        const k = byWeight[q], i = ea[k], j = eb[k];
        if (!visible[i] || !visible[j]) continue;
        const x1 = wx[i] * scale + tx, y1 = wy[i] * scale + ty, x2 = wx[j] * scale + tx, y2 = wy[j] * scale + ty;
        if ((x1 < 0 && x2 < 0) || (x1 > W && x2 > W) || (y1 < 0 && y2 < 0) || (y1 > H && y2 > H)) continue;
        lctx.moveTo(x1, y1);
        lctx.lineTo(x2, y2);
        drawn++;
      }
      lctx.stroke();
      metrics.edgesDrawn = drawn;
      if (selected >= 0) {
        lctx.strokeStyle = "rgba(200,60,40,0.55)";
        lctx.lineWidth = 1.2;
        lctx.beginPath();
        for (let k = 0; k < m; k++) {
          if (ea[k] !== selected && eb[k] !== selected) continue;
          const i = ea[k], j = eb[k];
          if (!visible[i] || !visible[j]) continue;
          lctx.moveTo(wx[i] * scale + tx, wy[i] * scale + ty);
          lctx.lineTo(wx[j] * scale + tx, wy[j] * scale + ty);
        }
        lctx.stroke();
      }
      layerView = { scale, tx, ty };
      metrics.edgeLayerMs.push(performance.now() - t);
    }

    function draw() {
      raf = 0;
      if (!dirty) return;
      dirty = false;
      const t = performance.now();
      const moving = t - lastMove < IDLE_MS;
      if (!full && !settle && rendered) {
        // A move: the rendered canvas, moved and scaled to this view.
        const k = scale / rendered.scale;
        canvas.style.transform = `translate(${tx - rendered.tx * k}px, ${ty - rendered.ty * k}px) scale(${k})`;
        metrics.moveFrames++;
        return;
      }
      full = false;
      settle = false;
      if (!layerView || layerView.scale !== scale || layerView.tx !== tx || layerView.ty !== ty) drawEdgeLayer();
      canvas.style.transform = "";
      rendered = { scale, tx, ty };
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      // The edge layer, moved from the view it was drawn at to this one.
      const k = scale / layerView.scale;
      ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * (tx - layerView.tx * k), dpr * (ty - layerView.ty * k));
      ctx.drawImage(layer, 0, 0, layer.width / dpr, layer.height / dpr);
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      // Nodes, one path per community colour (dimmed when not highlighted).
      const paths = new Map();
      const dim = new Map();
      for (let i = 0; i < n; i++) {
        if (!visible[i]) continue;
        const x = wx[i] * scale + tx, y = wy[i] * scale + ty, r = radius(i);
        if (x < -r || x > W + r || y < -r || y > H + r) continue;
        const target = matched && !matched[i] ? dim : paths;
        let p = target.get(comm[i]);
        if (!p) { p = new Path2D(); target.set(comm[i], p); }
        p.moveTo(x + r, y);
        p.arc(x, y, r, 0, 2 * Math.PI);
      }
      ctx.globalAlpha = 0.18;
      for (const [c, p] of dim) { ctx.fillStyle = colour(c); ctx.fill(p); }
      ctx.globalAlpha = 1;
      for (const [c, p] of paths) { ctx.fillStyle = colour(c); ctx.fill(p); }
      // Labels: the selected and highlighted concepts, then the largest on screen.
      ctx.font = "12px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      const labelled = [];
      if (selected >= 0 && visible[selected]) labelled.push(selected);
      if (matched) for (let i = 0; i < n && labelled.length < 40; i++) if (matched[i] && visible[i]) labelled.push(i);
      if (!moving) {
        for (let i = 0; i < n && labelled.length < 60; i++) if (visible[i] && (radius(i) > 9 || n <= 60)) labelled.push(i);
      }
      for (const i of labelled) {
        const x = wx[i] * scale + tx, y = wy[i] * scale + ty, r = radius(i);
        if (x < 0 || x > W || y < 0 || y > H) continue;
        ctx.lineWidth = 3;
        ctx.strokeStyle = "rgba(255,255,255,0.9)";
        ctx.strokeText(labels[i], x + r + 3, y);
        ctx.fillStyle = "#222";
        ctx.fillText(labels[i], x + r + 3, y);
      }
      if (selected >= 0 && visible[selected]) {
        ctx.beginPath();
        ctx.arc(wx[selected] * scale + tx, wy[selected] * scale + ty, radius(selected) + 3, 0, 2 * Math.PI);
        ctx.lineWidth = 2.5;
        ctx.strokeStyle = "#c83c28";
        ctx.stroke();
      }
      metrics.drawMs.push(performance.now() - t);
      // The first paint is done when the next frame starts: the browser
      // has rasterized and shown the one drawn here.
      if (!metrics.firstPaintMs) requestAnimationFrame(() => { metrics.firstPaintMs = metrics.firstPaintMs || performance.now(); });
    }
    // moved records a change of the view by pan or zoom: the frame moves
    // the rendered canvas, which is rendered afresh once moves stop.
    function moved() {
      lastMove = performance.now();
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => { settle = true; request(false); }, IDLE_MS);
      request(false);
    }
    // request asks for a frame: a full render unless only the view moved.
    function request(render = true) {
      full = full || render;
      dirty = true;
      if (!raf) raf = requestAnimationFrame(draw);
    }

    // Interaction: the same functions serve the mouse, the keyboard and
    // the benchmark (bench below).
    function pan(dx, dy) { tx += dx; ty += dy; moved(); }
    function zoomAt(x, y, f) {
      const s = Math.min(200, Math.max(0.02, scale * f));
      f = s / scale;
      tx = x - (x - tx) * f; ty = y - (y - ty) * f; scale = s;
      moved();
    }
    function nodeAt(x, y) {
      let best = -1, bestD = Infinity;
      for (let i = 0; i < n; i++) {
        if (!visible[i]) continue;
        const dx = wx[i] * scale + tx - x, dy = wy[i] * scale + ty - y, d = dx * dx + dy * dy, r = radius(i) + 3;
        if (d <= r * r && d < bestD) { best = i; bestD = d; }
      }
      return best;
    }
    function select(i) {
      selected = i;
      layerView = null;
      if (hood.checked) computeVisible();
      info.replaceChildren();
      if (i < 0) { info.append("Click a concept."); request(); return; }
      const links = ea.reduce((s, a, k) => s + (a === i || eb[k] === i ? 1 : 0), 0);
      const expand = el("button", { type: "button", id: "map-expand", onclick: () => grow(i) }, "Show its neighbours");
      info.append(el("h2", {}, labels[i]),
        el("p", {}, `PageRank ${rank[i].toFixed(5)} · community #${comm[i]} · ${degree[i]} neighbours (${links} on the map)`),
        el("p", {}, el("a", { id: "map-open", href: contextHref(labels[i]) }, "Open its context"), " ", expand));
      request();
    }
    async function grow(i) {
      try {
        const res = await call("graph map", { concept: ids[i], limit: 300 });
        const c = res.nodes[0];
        const spread = WORLD * 0.12;
        const local = addNodes(res.nodes, (d) => [wx[i] + (d.x - c.x) * spread, wy[i] + (d.y - c.y) * spread]);
        addEdges(res.edges, local);
        sortEdges();
        maxRank = rank.reduce((m, r) => Math.max(m, r), maxRank);
        fillCommunities();
        computeVisible();
        computeMatched();
        stats.textContent = statsText();
        select(i);
      } catch (err) { info.append(errorBox(err)); }
    }
    function statsText() {
      return `${n} of ${data.graph_nodes} concepts, ${ea.length} of ${data.graph_edges} edges (the ${EDGE_BUDGET.toLocaleString("en")} heaviest on screen drawn), ${data.communities} communities` +
        (n < data.graph_nodes ? " — the most central first; select a concept and show its neighbours to grow the map" : "");
    }

    // Pointer positions in the frame's coordinates (the canvas itself may
    // be moved by a CSS transform while the view moves).
    const at = (e) => { const r = wrap.getBoundingClientRect(); return [e.clientX - r.left - wrap.clientLeft, e.clientY - r.top - wrap.clientTop]; };
    let drag = null;
    // On the frame, not the canvas: the canvas moves under the pointer
    // while the view moves. Events from the panel are the panel's.
    const onMap = (e) => e.target === canvas || e.target === wrap;
    wrap.addEventListener("pointerdown", (e) => {
      if (!onMap(e)) return;
      wrap.setPointerCapture(e.pointerId);
      const [x, y] = at(e);
      drag = { x, y, moved: 0 };
    });
    wrap.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const [x, y] = at(e);
      const dx = x - drag.x, dy = y - drag.y;
      drag.moved += Math.abs(dx) + Math.abs(dy);
      drag.x = x; drag.y = y;
      pan(dx, dy);
    });
    wrap.addEventListener("pointerup", (e) => {
      if (!drag) return;
      const [x, y] = at(e);
      if (drag && drag.moved < 4) select(nodeAt(x, y));
      drag = null;
    });
    wrap.addEventListener("wheel", (e) => {
      if (!onMap(e)) return;
      e.preventDefault();
      const [x, y] = at(e);
      zoomAt(x, y, Math.exp(-e.deltaY * 0.0015));
    }, { passive: false });
    canvas.addEventListener("keydown", (e) => {
      const step = 60;
      const keys = { ArrowLeft: () => pan(step, 0), ArrowRight: () => pan(-step, 0), ArrowUp: () => pan(0, step), ArrowDown: () => pan(0, -step),
        "+": () => zoomAt(W / 2, H / 2, 1.25), "=": () => zoomAt(W / 2, H / 2, 1.25), "-": () => zoomAt(W / 2, H / 2, 0.8),
        Enter: () => { if (selected >= 0) location.hash = contextHref(labels[selected]); } };
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
    highlight.addEventListener("input", () => { computeMatched(); layerView = null; request(); });
    highlight.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || !matched) return;
      const i = matched.indexOf(1);
      if (i < 0) return;
      select(i);
      tx = W / 2 - wx[i] * scale; ty = H / 2 - wy[i] * scale;
      layerView = null;
      request();
    });
    community.addEventListener("change", () => { computeVisible(); fit(); });
    hood.addEventListener("change", () => { computeVisible(); fit(); });
    reset.addEventListener("click", fit);
    const ro = new ResizeObserver(resize);
    ro.observe(canvas);

    computeVisible();
    computeMatched();
    resize();
    fit();
    stats.textContent = statsText();
    metrics.nodes = n;
    metrics.edges = ea.length;
    // Initial filters from the route: #/map?focus=Label or ?community=N.
    if (params.get("community") !== null) { community.value = params.get("community"); computeVisible(); fit(); }
    const focus = params.get("focus");
    if (focus) {
      let i = labels.findIndex((l) => l.toLowerCase() === focus.toLowerCase());
      if (i < 0) {
        try {
          const res = await call("graph map", { concept: focus, limit: 300 });
          const local = addNodes(res.nodes, (d) => [d.x * WORLD * 0.3, d.y * WORLD * 0.3]);
          addEdges(res.edges, local);
          sortEdges();
          maxRank = rank.reduce((m, r) => Math.max(m, r), maxRank);
          fillCommunities();
          computeVisible();
          i = local[0];
        } catch (err) { info.append(errorBox(err)); }
      }
      if (i >= 0) {
        hood.checked = true;
        select(i);
        computeVisible();
        fit();
      }
    }

    // bench pans and zooms for frames animation frames through the same
    // functions as the mouse, and reports the frame rate and draw times.
    window.noemaMap.bench = (frames) => new Promise((resolve) => {
      const times = [];
      let k = 0, last = performance.now();
      const start = last;
      metrics.drawMs = [];
      const layersBefore = metrics.edgeLayerMs.length;
      const movesBefore = metrics.moveFrames;
      const step = () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
        if (k >= frames) {
          const total = now - start;
          const sorted = [...metrics.drawMs].sort((a, b) => a - b);
          const gaps = times.slice(1).sort((a, b) => a - b);
          resolve({ frames, ms: total, fps: (frames * 1000) / total, moveFrames: metrics.moveFrames - movesBefore, drawP50: sorted[Math.floor(sorted.length / 2)], drawP95: sorted[Math.floor(sorted.length * 0.95)], drawMax: sorted[sorted.length - 1],
            frameP50: gaps[Math.floor(gaps.length / 2)], frameP95: gaps[Math.floor(gaps.length * 0.95)], edgeLayers: metrics.edgeLayerMs.length - layersBefore });
          return;
        }
        if (k % 2 === 0) pan(k % 4 === 0 ? 7 : -5, 3);
        else zoomAt(W / 2, H / 2, k % 4 === 1 ? 1.03 : 0.975);
        k++;
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
    window.noemaMap.view = () => ({ scale, tx, ty, selected: selected >= 0 ? labels[selected] : null, nodes: n, edges: ea.length });
    window.noemaMap.screenOf = (label) => {
      const i = labels.indexOf(label);
      if (i < 0) return null;
      const r = wrap.getBoundingClientRect();
      return { x: r.left + wrap.clientLeft + wx[i] * scale + tx, y: r.top + wrap.clientTop + wy[i] * scale + ty, visible: !!visible[i] };
    };
    return () => { ro.disconnect(); clearTimeout(idleTimer); if (raf) cancelAnimationFrame(raf); };
  }

  return { show, metrics };
})();
