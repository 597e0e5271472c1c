// noema's web view: a hash router over views that call the tools through
// POST /api/call (the same declarations as MCP and the CLI). No framework,
// no build step; the concept map is in map.js.
"use strict";

const noema = (() => {
  const view = () => document.getElementById("view");
  let config = { mode: "on", tools: [], vaults: [] };
  // vault is the vault every call runs on ("": the server's default).
  let vault = sessionStorage.getItem("noema.vault") || "";
  let cleanup = null; // the current view's teardown (timers, listeners)

  // el builds an element: el("a", {href: "#/"}, "text", child…). Text is
  // always a text node: nothing from a note or the index becomes markup
  // except a note's body, rendered by the server without raw HTML.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "class") e.className = v;
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  class CallError extends Error {
    constructor(code, message, param) {
      super(message);
      this.code = code;
      this.param = param;
    }
  }

  async function post(path, body) {
    const res = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    let data;
    try { data = await res.json(); } catch (e) { throw new CallError("internal", res.statusText); }
    if (!res.ok) {
      const err = data.error || {};
      if (res.status === 401) location.reload(); // the sign-in page
      throw new CallError(err.data ? err.data.code : err.code, err.message || res.statusText, err.param);
    }
    return data;
  }

  // call runs a tool by name with its MCP arguments and returns its result.
  async function call(tool, args) {
    return (await post("/api/call", { tool, args: args || {}, vault })).result;
  }

  function allowed(tool) {
    const t = config.tools.find((t) => t.name === tool);
    return !!(t && t.allowed);
  }

  // Routes: #/search?q=…, #/note/PATH, #/context/CONCEPT, #/map?focus=…, #/review, #/status.
  function parseHash() {
    const raw = location.hash.replace(/^#\/?/, "");
    const [path, query] = raw.split("?");
    const parts = path.split("/");
    const params = new URLSearchParams(query || "");
    return { name: parts[0] || "search", arg: parts.slice(1).map(decodeURIComponent).join("/"), params };
  }

  function noteHref(uriOrPath) {
    return "#/note/" + encodeURIComponent(String(uriOrPath).replace(/^memory:\/\//, ""));
  }
  function contextHref(concept) {
    return "#/context/" + encodeURIComponent(concept);
  }

  function toast(msg, isError) {
    const t = document.getElementById("toast");
    t.textContent = msg;
    t.className = isError ? "show error" : "show";
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.className = ""; }, 6000);
  }

  function errorBox(err) {
    return el("p", { class: "error", role: "alert" }, (err.code ? err.code + ": " : "") + err.message);
  }

  // highlight turns a snippet's «matched» terms into <mark> elements.
  function highlight(text) {
    const out = [];
    const re = /«([^»]*)»/g;
    let last = 0, m;
    while ((m = re.exec(text))) {
      out.push(text.slice(last, m.index), el("mark", {}, m[1]));
      last = re.lastIndex;
    }
    out.push(text.slice(last));
    return out;
  }

  function fmtNum(x, d) { return typeof x === "number" ? x.toFixed(d === undefined ? 3 : d) : "–"; }
  function fmtTime(t) { return t ? new Date(t).toLocaleString() : "–"; }

  async function route() {
    if (cleanup) { cleanup(); cleanup = null; }
    const r = parseHash();
    document.querySelectorAll("nav a").forEach((a) => {
      if (a.dataset.view === r.name) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    });
    const v = view();
    v.replaceChildren();
    const views = { search: viewSearch, note: viewNote, context: viewContext, map: viewMap, review: viewReview, status: viewStatus };
    const fn = views[r.name] || viewSearch;
    try {
      await fn(v, r);
    } catch (err) {
      v.append(errorBox(err));
    }
  }

  // ---- search ----

  let searchSeq = 0;
  function viewSearch(v, r) {
    document.title = "noema: search";
    const q = document.getElementById("q");
    const query = r.params.get("q") || q.value || "";
    if (q.value !== query) q.value = query;
    const mode = el("select", { id: "mode-select", name: "mode" },
      ["hybrid", "fulltext", "semantic"].map((m) => el("option", { value: m }, m)));
    mode.value = r.params.get("mode") || "hybrid";
    const folder = el("input", { id: "folder", name: "folder", type: "text", placeholder: "folder", value: r.params.get("folder") || "" });
    const tags = el("input", { id: "tags", name: "tags", type: "text", placeholder: "tag, tag", value: r.params.get("tags") || "" });
    const asOf = el("input", { id: "as-of", name: "as_of", type: "date", value: r.params.get("as_of") || "" });
    const filters = el("form", { class: "filters", "aria-label": "Search filters", onsubmit: (e) => e.preventDefault() },
      el("label", { for: "mode-select" }, "Mode"), mode,
      el("label", { for: "folder" }, "Folder"), folder,
      el("label", { for: "tags" }, "Tags"), tags,
      el("label", { for: "as-of", title: "answer from the notes valid on that date (supersedes, valid_from, valid_until)" }, "As of"), asOf);
    const summary = el("p", { class: "summary", id: "search-summary" });
    const list = el("ol", { class: "hits", id: "hits", "aria-labelledby": "search-summary" });
    v.append(el("h1", { class: "sr" }, "Search"), filters, summary, list);
    const run = async () => {
      const seq = ++searchSeq;
      const text = q.value.trim();
      const params = new URLSearchParams();
      if (text) params.set("q", text);
      if (mode.value !== "hybrid") params.set("mode", mode.value);
      if (folder.value.trim()) params.set("folder", folder.value.trim());
      if (tags.value.trim()) params.set("tags", tags.value.trim());
      if (asOf.value) params.set("as_of", asOf.value);
      history.replaceState(null, "", "#/search" + (params.toString() ? "?" + params : ""));
      if (!text) {
        summary.textContent = "Type to search the notes. Results come as you type; each says why it ranks where it does.";
        list.replaceChildren();
        return;
      }
      const args = { query: text, mode: mode.value, limit: 20 };
      if (folder.value.trim()) args.folder = folder.value.trim();
      const tagList = tags.value.split(",").map((t) => t.trim()).filter(Boolean);
      if (tagList.length) args.tags = tagList;
      if (asOf.value) args.as_of = asOf.value;
      try {
        const res = await call("search_notes", args);
        if (seq !== searchSeq) return; // a newer search answered or is on its way
        summary.textContent = `${res.total} notes for “${res.query}” (${res.mode})` + (res.has_more ? ", best " + res.hits.length + " shown" : "");
        for (const w of res.warnings || []) summary.append(el("span", { class: "warning" }, " ⚠ " + w));
        list.replaceChildren(...res.hits.map(hitItem));
      } catch (err) {
        if (seq === searchSeq) list.replaceChildren(el("li", {}, errorBox(err)));
      }
    };
    let timer;
    const later = () => { clearTimeout(timer); timer = setTimeout(run, 120); };
    q.addEventListener("input", later);
    for (const c of [mode, folder, tags, asOf]) c.addEventListener("input", later);
    cleanup = () => { q.removeEventListener("input", later); clearTimeout(timer); };
    run();
  }

  function hitItem(h) {
    const why = [];
    if (h.ranks && h.ranks.fulltext) why.push("full text #" + h.ranks.fulltext);
    if (h.ranks && h.ranks.semantic) why.push("meaning #" + h.ranks.semantic);
    why.push("decay " + fmtNum(h.decay, 2));
    // Its place in time (docs/time.md): stale notes rank below what replaced them.
    if (h.superseded_by && h.superseded_by.length) why.push("superseded by " + h.superseded_by.map(titleOfURI).join(", "));
    if (h.successor) why.push("replaces " + (h.supersedes || []).map(titleOfURI).join(", "));
    if (h.expired) why.push("expired " + (h.valid_until || "").slice(0, 10));
    if (h.not_yet_valid) why.push("valid from " + (h.valid_from || "").slice(0, 10));
    const stale = (h.superseded_by && h.superseded_by.length) || h.expired || h.not_yet_valid;
    const li = el("li", { class: stale ? "hit stale" : "hit" },
      el("a", { href: noteHref(h.uri), class: "title" }, h.title || h.uri),
      el("span", { class: "score", title: "score (0-1, decay applied)" }, fmtNum(h.score)),
      el("p", { class: "snippet" }, highlight(h.snippet || "")),
      el("p", { class: "why" }, "Why here: " + why.join(" · ") + " — " + h.uri));
    if (h.explain) li.append(explainBlock(h.explain));
    return li;
  }

  // timeMarks says why a note no longer holds (superseded, expired, not yet
  // valid), "" when it holds (docs/time.md).
  function timeMarks(n) {
    const m = [];
    if (n.superseded_by && n.superseded_by.length) m.push("superseded by " + n.superseded_by.map(titleOfURI).join(", "));
    if (n.expired) m.push("expired " + (n.valid_until || "").slice(0, 10));
    if (n.not_yet_valid) m.push("valid from " + (n.valid_from || "").slice(0, 10));
    return m.join(", ");
  }

  // titleOfURI names a note by its memory:// URI's last part.
  function titleOfURI(uri) {
    return decodeURIComponent(uri.replace(/^memory:\/\//, "").split("/").pop());
  }

  // explainBlock shows a hit's explain output, whatever its shape.
  function explainBlock(x) {
    const d = el("details", { class: "explain" }, el("summary", {}, "How this score was made"));
    if (typeof x === "string") d.append(el("pre", {}, x));
    else d.append(el("pre", {}, JSON.stringify(x, null, 2)));
    return d;
  }

  // ---- note ----

  async function viewNote(v, r) {
    const data = await post("/api/note", { uri: r.arg, vault });
    const n = data.result;
    document.title = "noema: " + n.title;
    const head = el("header", { class: "note-head" },
      el("h1", {}, n.title),
      el("p", { class: "meta" }, n.path, " · modified ", fmtTime(n.modified), " · ", n.size + " bytes"),
      n.tags && n.tags.length ? el("p", { class: "tags" }, n.tags.map((t) => el("span", { class: "tag" }, "#" + t))) : null);
    const props = Object.entries(n.front_matter || {});
    const propTable = props.length ? el("table", { class: "props", "aria-label": "Properties" },
      el("caption", {}, "Properties"),
      props.map(([k, val]) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, typeof val === "string" ? val : JSON.stringify(val))))) : null;
    const body = el("article", { class: "markdown", id: "note-body" });
    body.innerHTML = data.html; // goldmark's output, raw HTML left out (see package web)
    const side = el("aside", { class: "side" });
    v.append(el("div", { class: "note" }, el("div", { class: "main" }, head, propTable, body), side));
    // Links of the note, backlinks ([[title]] searches) and relations.
    const links = (n.links || []).filter((l, i, all) => all.findIndex((m) => m.key === l.key) === i);
    side.append(el("section", { "aria-label": "Links" }, el("h2", {}, "Links (" + links.length + ")"),
      el("ul", {}, links.map((l) => el("li", {}, el("a", { href: l.path ? noteHref(l.path) : contextHref(l.target) }, l.target), l.embed ? " (embed)" : "")))));
    const back = el("section", { "aria-label": "Backlinks" }, el("h2", {}, "Backlinks"), el("p", {}, "…"));
    const rels = el("section", { "aria-label": "Relations" }, el("h2", {}, "Relations"), el("p", {}, "…"));
    side.append(back, rels);
    const names = [n.title, ...(n.aliases || [])];
    Promise.all(names.map((name) => call("search_notes", { query: "[[" + name + "]]", limit: 50 }).catch(() => ({ hits: [] })))).then((all) => {
      const seen = new Set([n.uri]);
      const hits = [];
      for (const res of all) for (const h of res.hits) if (!seen.has(h.uri)) { seen.add(h.uri); hits.push(h); }
      back.lastChild.replaceWith(hits.length
        ? el("ul", {}, hits.map((h) => el("li", {}, el("a", { href: noteHref(h.uri) }, h.title))))
        : el("p", { class: "muted" }, "No note links [[" + n.title + "]]."));
    });
    // The note's relations and, when the note is a concept's page, the concept's.
    Promise.all([call("neighbors", { id: n.uri, limit: 100 }), call("neighbors", { id: n.title, limit: 100 }).catch(() => null)]).then(([own, concept]) => {
      let rs = own.neighbors.filter((x) => x.edge.kind === "relation");
      if (concept && concept.node.kind === "concept" && concept.node.page === n.uri) {
        rs = rs.concat(concept.neighbors.filter((x) => x.edge.kind === "relation"));
      }
      rels.lastChild.replaceWith(rs.length
        ? el("ul", {}, rs.map((x) => el("li", {}, x.direction === "out" ? "→ " : "← ", x.edge.type, " ",
          x.node ? el("a", { href: x.node.kind === "note" ? noteHref(x.node.id) : contextHref(x.node.label) }, x.node.label) : el("span", { class: "muted" }, (x.direction === "out" ? x.edge.target : x.edge.source) + " (dangling)"))))
        : el("p", { class: "muted" }, "No typed relations."));
    }).catch((err) => rels.lastChild.replaceWith(errorBox(err)));
  }

  // ---- context ----

  async function viewContext(v, r) {
    const res = await call("build_context", { concept: r.arg, include_content: true, max_entities: 30, max_tokens: 20000 });
    const c = res.concept;
    document.title = "noema: " + c.label;
    v.append(el("header", { class: "note-head" },
      el("h1", {}, c.label),
      el("p", { class: "meta" }, c.id,
        c.aliases && c.aliases.length ? " · also " + c.aliases.join(", ") : "",
        " · ", el("a", { href: "#/map?focus=" + encodeURIComponent(c.label) }, "show on the map"),
        c.page ? [" · ", el("a", { href: noteHref(c.page) }, "its page")] : null),
      c.description ? el("p", { class: "description" }, c.description) : null));
    for (const w of res.warnings || []) v.append(el("p", { class: "warning" }, "⚠ " + w));
    const grid = el("div", { class: "context" });
    grid.append(el("section", { "aria-label": "Notes" }, el("h2", {}, "Notes, freshest first (" + res.notes.length + ")"),
      el("ul", { class: "notes" }, res.notes.map((n) => el("li", { class: timeMarks(n) ? "stale" : null },
        el("a", { href: noteHref(n.uri) }, n.title), el("span", { class: "muted" }, " · " + fmtTime(n.modified) + " · decay " + fmtNum(n.decay, 2) + (timeMarks(n) ? " · " + timeMarks(n) : "")),
        n.excerpt ? el("p", { class: "excerpt" }, n.excerpt) : null)))));
    grid.append(el("section", { "aria-label": "Relations" }, el("h2", {}, "Relations (" + res.relations.length + ")"),
      res.relations.length ? el("ul", {}, res.relations.map((x) => el("li", {}, x.direction === "out" ? "→ " : "← ", x.type, " ",
        x.other.startsWith("memory://") ? el("a", { href: noteHref(x.other) }, x.other_label || x.other)
          : el("a", { href: contextHref(x.other_label || x.other) }, x.other_label || x.other)))) : el("p", { class: "muted" }, "None.")));
    const byID = Object.fromEntries(res.related.map((x) => [x.id, x.label]));
    byID[c.id] = c.label;
    grid.append(el("section", { "aria-label": "Related concepts" }, el("h2", {}, "Related concepts (" + res.related.length + ")"),
      el("table", { class: "related" }, el("tr", {}, el("th", { scope: "col" }, "Concept"), el("th", { scope: "col" }, "Notes"), el("th", { scope: "col" }, "Hops"), el("th", { scope: "col" }, "Via")),
        res.related.map((x) => el("tr", {}, el("td", {}, el("a", { href: contextHref(x.label) }, x.label)), el("td", {}, x.count), el("td", {}, x.distance),
          el("td", {}, x.distance > 1 ? byID[x.via] || x.via : "—"))))));
    if (res.community) {
      const cc = res.community;
      grid.append(el("section", { "aria-label": "Community" }, el("h2", {}, "Community #" + cc.community + " (" + cc.size + " concepts)" + (cc.stale ? ", being updated" : "")),
        el("p", {}, el("a", { href: "#/map?community=" + cc.community }, "show the community on the map")),
        el("ul", { class: "inline" }, cc.siblings.map((s) => el("li", {}, el("a", { href: contextHref(s.label) }, s.label))))));
    }
    v.append(grid);
  }

  // ---- map (map.js draws it) ----

  async function viewMap(v, r) {
    document.title = "noema: map";
    cleanup = await window.noemaMap.show(v, r.params, { call, el, contextHref, errorBox });
  }

  // ---- duplicate review ----

  async function viewReview(v) {
    document.title = "noema: review";
    v.append(el("h1", {}, "Duplicate review"));
    const canWrite = allowed("merge_concepts");
    if (!canWrite) v.append(el("p", { class: "warning" }, "This web view is read-only (noema serve --ui=readonly): merges are shown, not made."));
    const undoBox = el("div", { id: "undo-box" });
    v.append(undoBox);
    const res = await call("analyze_duplicates", { limit: 50 });
    v.append(el("p", { class: "summary" }, `${res.total} groups among ${res.concepts} concepts` + (res.embedder ? ` (embedder ${res.embedder})` : "")));
    for (const w of res.warnings || []) v.append(el("p", { class: "warning" }, "⚠ " + w));
    const list = el("ol", { class: "groups" });
    v.append(list);
    res.groups.forEach((g, i) => list.append(groupCard(g, i, canWrite, undoBox)));
    if (res.do_not_merge && res.do_not_merge.length) {
      v.append(el("details", { class: "dnm" }, el("summary", {}, `Look alike, kept apart (${res.do_not_merge.length})`),
        el("ul", {}, res.do_not_merge.map((d) => el("li", {}, `${d.a.label} / ${d.b.label}: ${d.reason}`)))));
    }
  }

  function groupCard(g, i, canWrite, undoBox) {
    const id = "group-" + i;
    const out = el("div", { class: "diff", id: id + "-diff", "aria-live": "polite" });
    const card = el("li", { class: "group", id, "aria-labelledby": id + "-title" },
      el("h2", { id: id + "-title" }, el("span", { class: "verdict " + g.verdict }, g.verdict), " ", g.members.map((m) => m.label).join(" · "),
        el("span", { class: "score" }, " score " + fmtNum(g.score, 2))),
      el("p", {}, "Keep ", el("a", { href: contextHref(g.target.label) }, g.target.label), "; merge ", sourceLabels(g).join(", "), " into it."),
      el("table", { class: "evidence" },
        el("caption", {}, "Evidence"),
        el("tr", {}, ["Pair", "Verdict", "Fuzzy", "Similarity", "Shared", "Evidence"].map((hd) => el("th", { scope: "col" }, hd))),
        g.pairs.map((p) => el("tr", {}, el("td", {}, p.a.label + " ~ " + p.b.label), el("td", {}, p.verdict + " " + fmtNum(p.score, 2)),
          el("td", {}, fmtNum(p.fuzzy, 1)), el("td", {}, p.similarity === null ? "–" : fmtNum(p.similarity)), el("td", {}, p.shared_neighbors),
          el("td", {}, p.evidence.join(", "))))));
    const merge = (dryRun) => call("merge_concepts", { sources: g.merge.sources, target: g.merge.target, dry_run: dryRun });
    const dry = el("button", { type: "button", class: "dry-run", "aria-controls": id + "-diff", onclick: async () => {
      out.replaceChildren(el("p", {}, "…"));
      try { out.replaceChildren(mergeDiff(await merge(true))); } catch (err) { out.replaceChildren(errorBox(err)); }
    } }, "Dry run");
    const confirmBox = el("div", { class: "confirm", hidden: true });
    const doMerge = el("button", { type: "button", class: "merge", disabled: !canWrite, title: canWrite ? null : "read-only web view", onclick: () => {
      confirmBox.hidden = false;
      confirmBox.querySelector("button").focus();
    } }, "Merge…");
    confirmBox.append(el("span", {}, `Merge ${sourceLabels(g).join(", ")} into ${g.target.label}? Every link to them is rewritten. `),
      el("button", { type: "button", class: "confirm-merge", onclick: async () => {
        confirmBox.hidden = true;
        try {
          const res = await merge(false);
          out.replaceChildren(mergeDiff(res));
          card.classList.add("done");
          toast(res.message);
          showUndo(undoBox, "merge_concepts", res.message);
        } catch (err) { out.replaceChildren(errorBox(err)); }
      } }, "Confirm merge"),
      el("button", { type: "button", onclick: () => { confirmBox.hidden = true; doMerge.focus(); } }, "Cancel"));
    // Not a duplicate: the target records each source in its distinct_from
    // metadata (update_concept not_duplicate_of); analyze_duplicates then
    // keeps the pairs apart and merge_concepts needs force.
    const notDup = el("button", { type: "button", class: "not-duplicate", disabled: !allowed("update_concept"),
      title: allowed("update_concept") ? null : "read-only web view", onclick: async () => {
        try {
          await call("update_concept", { concept: g.merge.target, not_duplicate_of: sourceLabels(g) });
          card.classList.add("done");
          const msg = `Marked ${sourceLabels(g).join(", ")} as not a duplicate of ${g.target.label}`;
          out.replaceChildren(el("p", { class: "message" }, msg + ` (distinct_from in its page's properties: remove a name there to take the mark back).`));
          toast(msg);
        } catch (err) { out.replaceChildren(errorBox(err)); }
      } }, "Not a duplicate");
    card.append(el("div", { class: "actions" }, dry, doMerge, notDup), confirmBox, out);
    return card;
  }

  // sourceLabels names a group's merge sources (ids) by their labels.
  function sourceLabels(g) {
    return g.merge.sources.map((id) => (g.members.find((m) => m.id === id) || { label: id }).label);
  }

  function mergeDiff(res) {
    const d = el("div", {});
    d.append(el("p", { class: "message" }, res.message));
    if (res.needs_force) d.append(el("p", { class: "warning" }, "This merge needs force (a source below min_similarity, or marked as not a duplicate)."));
    for (const w of res.warnings || []) d.append(el("p", { class: "warning" }, "⚠ " + w));
    if (res.aliases_added && res.aliases_added.length) d.append(el("p", {}, "Aliases added: " + res.aliases_added.join(", ")));
    if (res.pages_deleted && res.pages_deleted.length) d.append(el("p", {}, "Pages deleted: " + res.pages_deleted.join(", ")));
    if (res.changes && res.changes.length) {
      d.append(el("pre", { class: "patch", "aria-label": "Changes" }, res.changes.map((c) =>
        [el("span", { class: "file" }, c.uri + ":" + c.line + "\n"), el("del", {}, "- " + c.before + "\n"), el("ins", {}, "+ " + c.after + "\n")])));
    }
    return d;
  }

  // showUndo offers to undo the newest operation of the tool (the one just made).
  async function showUndo(box, tool, what) {
    const ops = await call("list_operations", { limit: 5 });
    const op = ops.operations.find((o) => o.tool === tool);
    if (!op) return;
    const btn = el("button", { type: "button", class: "undo", onclick: async () => {
      try {
        const res = await call("undo_operation", { id: op.id });
        box.replaceChildren(el("p", { class: "message" }, res.message));
        toast(res.message);
      } catch (err) { box.replaceChildren(errorBox(err)); }
    } }, "Undo");
    box.replaceChildren(el("p", { class: "message" }, "Done: " + what + " (operation " + op.id + ", " + op.file_count + " files) "), btn);
  }

  // ---- status ----

  async function viewStatus(v) {
    document.title = "noema: status";
    v.append(el("h1", {}, "Status"));
    const box = el("div", { id: "status-box" });
    const syncBtn = el("button", { type: "button", disabled: !allowed("sync"), onclick: async () => {
      syncBtn.disabled = true;
      try { const r = await call("sync", {}); toast("Synced: " + JSON.stringify(r).slice(0, 200)); } catch (err) { toast(err.message, true); }
      syncBtn.disabled = false;
    } }, "Sync now");
    v.append(el("p", {}, syncBtn), box);
    const tick = async () => {
      try {
        const s = await call("status", {});
        box.replaceChildren(statusBlock(s));
      } catch (err) { box.replaceChildren(errorBox(err)); }
    };
    await tick();
    const timer = setInterval(tick, 1000);
    cleanup = () => clearInterval(timer);
  }

  function progress(label, done, total, running) {
    const pct = total > 0 ? Math.round((done / total) * 100) : (running ? 0 : 100);
    return el("div", { class: "progress" }, el("label", {}, label + ": " + (running ? `${done} of ${total}` : "idle")),
      el("progress", { max: 100, value: pct, "aria-label": label }, pct + "%"));
  }

  function statusBlock(s) {
    const e = s.embeddings || {};
    const d = el("div", {});
    d.append(el("table", { class: "props" },
      [["Vault", s.vault], ["Notes", s.notes], ["Concepts", s.concepts], ["Mentions", s.mentions], ["Relations", s.relations],
        ["Last sync", fmtTime(s.last_sync)], ["Role", s.role || "–"], ["Embedder", (e.embedder || "–") + (e.dimension ? ` (${e.dimension} dimensions)` : "")],
        ["Concept vectors", `${e.embedded || 0} of ${e.concepts || 0}`], ["Note chunks embedded", `${e.chunks_embedded || 0} of ${e.chunks || 0}`]]
        .map(([k, val]) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, String(val))))));
    d.append(progress("Sync", s.sync.done, s.sync.total, s.sync.running));
    d.append(progress("Embeddings", e.done || 0, e.total || 0, !!e.running));
    if (s.sync.last_error) d.append(el("p", { class: "error" }, "Last sync error: " + s.sync.last_error));
    if (e.last_error) d.append(el("p", { class: "error" }, "Embedding error: " + e.last_error));
    d.append(el("h2", {}, "Warnings (" + s.warnings.length + ")"));
    d.append(s.warnings.length ? el("ul", { class: "warnings" }, s.warnings.map((w) => el("li", {}, el("code", {}, w.code), " ",
      el("a", { href: noteHref(w.path) }, w.path), ": ", w.message))) : el("p", { class: "muted" }, "None."));
    return d;
  }

  // ---- start ----

  async function start() {
    try {
      const res = await fetch("/api/config", { credentials: "same-origin" });
      if (res.status === 401) { location.reload(); return; }
      config = await res.json();
    } catch (e) { /* keep the defaults */ }
    document.getElementById("mode").textContent = config.mode === "readonly" ? "read-only" : "";
    const names = (config.vaults || []).map((v) => v.name);
    if (!names.includes(vault)) vault = names[0] || "";
    if (names.length > 1) {
      // Several vaults: choose the one the page shows.
      const pick = el("select", { id: "vault", onchange: () => { vault = pick.value; sessionStorage.setItem("noema.vault", vault); footer(); route(); } },
        names.map((n) => el("option", { value: n }, n)));
      pick.value = vault;
      document.querySelector("nav").before(el("label", { for: "vault", class: "vault-label" }, "Vault"), pick);
    }
    const footer = () => { document.getElementById("footer").textContent = `noema ${config.version || ""} · vault ${vault}`; };
    footer();
    const q = document.getElementById("q");
    q.addEventListener("input", () => {
      if (parseHash().name !== "search") location.hash = "#/search?q=" + encodeURIComponent(q.value);
    });
    document.getElementById("searchform").addEventListener("submit", (e) => {
      e.preventDefault();
      const first = document.querySelector("#hits a");
      if (first) first.click();
    });
    document.addEventListener("keydown", (e) => {
      const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
      if (e.key === "/" && !typing) { e.preventDefault(); q.focus(); q.select(); return; }
      // Arrow keys move between search hits and review groups.
      if ((e.key === "ArrowDown" || e.key === "ArrowUp") && (document.activeElement === q || document.activeElement.closest("#hits"))) {
        const links = [...document.querySelectorAll("#hits a.title")];
        if (!links.length) return;
        e.preventDefault();
        const i = links.indexOf(document.activeElement);
        const next = e.key === "ArrowDown" ? Math.min(i + 1, links.length - 1) : i - 1;
        if (next < 0) q.focus(); else links[next].focus();
      }
    });
    window.addEventListener("hashchange", route);
    route();
  }

  document.addEventListener("DOMContentLoaded", start);
  return { call, el };
})();
