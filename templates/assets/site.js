/* errscan site: the index, the search page's results and the browse filters. Plain JavaScript, no
   network: the index comes as <script> files (data/manifest.js, data/errors-NNN.js) so that it also
   works from file://. Ranking a pasted message is lookup.js's job. Every text is set with textContent. */
"use strict";

var errscan = { manifest: null, chunks: [], loading: null };

function errscanManifest(manifest) { errscan.manifest = manifest; }
function errscanChunk(number, entries) { errscan.chunks[number] = entries; }

/* Load every chunk once, by adding <script> elements; calls back when all are in. */
function loadIndex(root, done) {
  if (errscan.loading) { errscan.loading.push(done); return; }
  errscan.loading = [done];
  var total = errscan.manifest ? errscan.manifest.chunks : 0, left = total;
  function finish() { var waiting = errscan.loading; errscan.loading = []; errscan.ready = true; waiting.forEach(function (f) { f(); }); }
  if (!total) { finish(); return; }
  for (var i = 0; i < total; i++) {
    var script = document.createElement("script");
    script.src = root + "data/errors-" + String(i).padStart(3, "0") + ".js";
    script.onload = script.onerror = function () { if (--left === 0) finish(); };
    document.head.appendChild(script);
  }
}

function whenIndexReady(root, done) {
  if (errscan.ready) done(); else loadIndex(root, done);
}

function allEntries() {
  var out = [];
  errscan.chunks.forEach(function (chunk) { if (chunk) out.push.apply(out, chunk); });
  return out;
}

function element(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function describe(result) {
  if (result.keyword) return "keyword match: " + result.terms.join(", ");
  if (result.catchAll) return "its message is a single value, so any text matches";
  if (result.rule === "frame") return "the traceback's innermost frame is this raise";
  var label = { exact: "exact match", truncated: "matches the beginning (message cut short)", fuzzy: "similar words" }[result.rule];
  if (result.framed) label += " where the traceback's innermost frame is";
  return label + ", score " + result.score.toFixed(2) + (result.pinned ? "" : result.rule === "fuzzy" ? "" : " (little literal text: not certain)");
}

/* What names an entry before its message: its exception, a warning's category, a log's level. */
function label(entry) { return entry.exception || (entry.level || "").toUpperCase(); }
function title(entry) { return entry.message || label(entry); }

function clip(text, size) { return text.length > size ? text.slice(0, size - 1) + "\u2026" : text; }

/* ---- keyword search: MiniSearch (assets/minisearch.js) over what each entry names ---- */
var KEYWORD_FIELDS = ["id", "exception", "message", "path", "function", "connectors"];

function keywordIndex() {
  if (!errscan.keywords) {
    var entries = allEntries();
    var index = new MiniSearch({
      fields: KEYWORD_FIELDS, idField: "position",
      extractField: function (doc, field) {
        if (field === "position") return doc.position;
        var value = doc.entry[field];
        return Array.isArray(value) ? value.join(" ") : String(value || "");
      },
      searchOptions: { prefix: true, fuzzy: 0.2, combineWith: "AND", boost: { id: 3, exception: 2, path: 1.5, connectors: 1.5 } }
    });
    index.addAll(entries.map(function (entry, position) { return { position: position, entry: entry }; })
      .filter(function (doc) { return !doc.entry.via; }));
    errscan.keywords = { index: index, entries: entries };
  }
  return errscan.keywords;
}

/* Errors whose id, exception, message, file, function or connectors hold every word typed (by
   prefix, a typo allowed): what a pasted message does not find ("nixl", "HandshakeError", an id). */
function keywordMatches(text) {
  if (typeof MiniSearch === "undefined" || text.length > 200) return [];
  var k = keywordIndex();
  return k.index.search(text).map(function (hit) {
    return { entry: k.entries[hit.id], keyword: true, terms: hit.terms, score: hit.score };
  });
}

/* The catch-alls as one closed line (errscan lookup prints one too); opened, it lists them. */
function catchAllItem(found, root) {
  var item = element("li", "catch-all"), details = element("details"), inner = element("ul");
  details.appendChild(element("summary", "", "or any of " + found.length + " catch-all error" + (found.length === 1 ? "" : "s") +
    " (message is a value alone, like {msg}): any text matches them"));
  found.slice(0, SHOWN).forEach(function (r) {
    var row = element("li"), link = element("a", "", label(r.entry) + " \u00b7 " + r.entry.path + ":" + r.entry.line + " \u00b7 " + r.entry.function);
    link.href = root + "errors/" + r.entry.id + "/index.html";
    row.appendChild(link);
    inner.appendChild(row);
  });
  details.appendChild(inner);
  item.appendChild(details);
  return item;
}

/* ---- search page ---- */
function errscanSearch(root) {
  var box = document.getElementById("q"), status = document.getElementById("search-status");
  var list = document.getElementById("search-results"), timer = null, shown = 0;

  /* Message matches are listed at once; keyword matches follow when the keyword index is built
     (a second on a whole-package site): the list is marked `data-done` once they are in. */
  function show(text) {
    var turn = ++shown;
    list.textContent = "";
    list.removeAttribute("data-done");
    if (!text.trim()) { status.textContent = "Type or paste a message."; list.setAttribute("data-done", ""); return; }
    var ranked = rank(text, allEntries());
    render(ranked, null);
    setTimeout(function () { if (turn === shown) render(ranked, keywordMatches(text)); }, 0);
  }

  function render(ranked, found) {
    list.textContent = "";
    var count = function (test) { return ranked.filter(test).length; };
    var loose = count(function (r) { return r.catchAll; });
    var exact = count(function (r) { return r.rule === "exact"; }) - loose, cut = count(function (r) { return r.rule === "truncated"; });
    var framed = count(function (r) { return r.framed; });
    // Message matches first (a prefix of the ranking: what `errscan lookup` puts first leads);
    // keyword matches before the slivers of literal text and the catch-alls.
    var strong = ranked.filter(function (r) { return r.framed || (!r.catchAll && evidence(r)[0] === 2) || (!r.catchAll && r.score >= FUZZY_MIN); });
    var listed = {};
    strong.forEach(function (r) { listed[r.entry.id] = true; });
    var keywords = (found || []).filter(function (r) { return !listed[r.entry.id] && (listed[r.entry.id] = true); });
    // Catch-alls (a message that is a value alone) match any text: one line after everything else.
    var catchAlls = ranked.filter(function (r) { return r.catchAll && !listed[r.entry.id]; });
    var results = strong.concat(keywords, ranked.filter(function (r) { return !listed[r.entry.id] && !r.catchAll; }));
    status.textContent = results.length || found === null
      ? (framed ? framed + " pinned by the traceback, " : "") + exact + " exact, " + cut + " cut-short, " + count(function (r) { return r.rule === "fuzzy"; }) + " similar and " + loose + " catch-all match(es)" +
        (found === null ? "; looking for keywords\u2026" : keywords.length ? "; " + keywords.length + " more by keyword" : "") + (results.length > SHOWN ? "; the best " + SHOWN + " shown." : ".")
      : "No error in this catalog matches.";
    results.slice(0, SHOWN).forEach(function (r) {
      var shown = r.entry.via || r.entry, named = r.entry.via ? r.entry.via.label : label(r.entry);
      var item = element("li"), link = element("a", "", named + ": " + clip(shown.message || named, 240));
      link.href = root + "errors/" + r.entry.id + "/index.html";
      item.appendChild(link);
      var gone = r.entry.removed_since ? " \u00b7 no longer raised since " + r.entry.removed_since : "";
      var via = r.entry.via ? " \u00b7 " + r.entry.via.text : "";
      item.appendChild(element("div", "score", describe(r) + via + " \u00b7 " + shown.path + ":" + shown.line + " \u00b7 " + shown.function + gone));
      list.appendChild(item);
    });
    if (catchAlls.length) list.appendChild(catchAllItem(catchAlls, root));
    if (found !== null) list.setAttribute("data-done", "");
  }

  function run() {
    var text = box.value;
    try { history.replaceState(null, "", "?q=" + encodeURIComponent(text)); } catch (e) { /* file:// may refuse */ }
    if (errscan.ready) { show(text); return; }
    status.textContent = "Loading the index of " + (errscan.manifest ? errscan.manifest.total : 0) + " errors\u2026";
    whenIndexReady(root, function () { show(box.value); });
  }

  document.getElementById("search").addEventListener("submit", function (event) { event.preventDefault(); run(); });
  box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 200); });
  var initial = new URLSearchParams(location.search).get("q");
  if (initial) { box.value = initial; run(); }
}

/* ---- index page filters ---- */
var PAGE_ROWS = 100;

function errscanBrowse(root) {
  var form = document.getElementById("filters"), results = document.getElementById("results");
  var count = document.getElementById("result-count"), pages = document.getElementById("result-pages");
  var initialRows = results.innerHTML, initialCount = count.textContent;

  function chosen() {
    return { exception: form.exception.value, connector: form.connector.value, kind: form.kind.value };
  }

  function keep(entry, f) {
    return !entry.removed_since && !entry.via && (!f.exception || entry.exception === f.exception) && (!f.kind || entry.kind === f.kind) &&
      (!f.connector || entry.connectors.indexOf(f.connector) >= 0);
  }

  function render(matches, page) {
    var table = element("table", "errors"), head = element("thead"), body = element("tbody"), row = element("tr");
    ["Exception", "Message", "Where"].forEach(function (h) { row.appendChild(element("th", "", h)); });
    head.appendChild(row); table.appendChild(head); table.appendChild(body);
    matches.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS).forEach(function (entry) {
      var tr = element("tr"), cell = element("td"), link = element("a", "", clip(title(entry), 160));
      var kind = element("td"); kind.appendChild(element("code", "", label(entry)));
      if (entry.kind !== "raise") { kind.appendChild(document.createTextNode(" ")); kind.appendChild(element("small", "", entry.kind)); }
      link.href = root + "errors/" + entry.id + "/index.html";
      cell.appendChild(link);
      var where = element("td"); where.appendChild(element("code", "", entry.path + ":" + entry.line));
      tr.appendChild(kind); tr.appendChild(cell); tr.appendChild(where); body.appendChild(tr);
    });
    results.textContent = ""; results.appendChild(table);
    count.textContent = matches.length + " error" + (matches.length === 1 ? "" : "s") + " match the filters" +
      (matches.length > PAGE_ROWS ? ", page " + (page + 1) + " of " + Math.ceil(matches.length / PAGE_ROWS) : "") + ".";
    pages.textContent = "";
    if (matches.length > PAGE_ROWS) {
      for (var p = 0; p * PAGE_ROWS < matches.length; p++) {
        var button = element("button", "", String(p + 1));
        button.type = "button"; button.disabled = p === page;
        button.addEventListener("click", render.bind(null, matches, p));
        pages.appendChild(button);
      }
    }
  }

  function apply() {
    var f = chosen();
    if (!f.exception && !f.connector && !f.kind) {
      results.innerHTML = initialRows; count.textContent = initialCount; pages.textContent = "";
      return;
    }
    count.textContent = "Loading\u2026";
    whenIndexReady(root, function () {
      var current = chosen();
      render(allEntries().filter(function (e) { return keep(e, current); }), 0);
    });
  }

  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
  apply();
}
