/* errscan site: search by pasted message, and the browse filters. Plain JavaScript, no network:
   the index comes as <script> files (data/manifest.js, data/errors-NNN.js) so that it also works
   from file://. The exact rule is the regular expression errscan.match.compile_template wrote into
   the index; the fuzzy score is described in docs/matching.md. Every text is set with textContent. */
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

/* ---- reading a pasted log line ---- */
var ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
var PROCESS_TAG = /^\s*(?:\([^()\n]*\)\s*|\[rank\d+\]:\s?)/;     /* (EngineCore_DP0 pid=1234), [rank0]: */
var LOG_PREFIX = /^\s*(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+(?:\[[^\]\n]*\]\s*)?/;
var EXCEPTION_PREFIX = /^\s*(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning))\s*:\s*/;
var FRAME = /^\s*File "([^"]+)", line (\d+), in (\S+)/;           /* a traceback's frame line */
var QUOTE_PREFIX = /^(?:#+|>+|\/\/)(?:[ \t]|$)/;               /* a log pasted into comments or a quote */
/* an exception named after other words, maybe in inline code: "attempt 2 ValueError: ..." */
var INLINE_EXCEPTION = /(?:^|[\s(])(`?)((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception))\s*:\s*(.*)$/;

function stripLine(line) {
  var previous;
  do {
    previous = line;
    line = line.replace(PROCESS_TAG, "").replace(LOG_PREFIX, "").replace(QUOTE_PREFIX, "");
  } while (line !== previous);
  return line;
}

var PYDANTIC = /^\s*(?:Value|Assertion) error, /, PYDANTIC_TAIL = /\s*\[type=\w+[^\]]*\][\s\S]*$/;
/* a vLLM record at warning or above: its level and the `[file.py:123]` that wrote it */
var RECORD = /^\s*(WARNING|WARN|ERROR|CRITICAL|FATAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:[.,]\d+)?\s+\[?([^\s\[\]]+):(\d+)\]/;
var RECORD_LEVEL = { WARNING: "warning", WARN: "warning", ERROR: "error", CRITICAL: "critical", FATAL: "critical" };
var CUT_MARKERS = ["[truncated]", "(truncated)", "<truncated>", "[...]", "\u2026", "..."];
var QUOTED = /'((?:[^'\\]|\\.){12,})'|"((?:[^"\\]|\\.){12,})"/g;

/* The string a quoted literal (a `repr`, a JSON string) shows, or null. */
function unquote(text) {
  var q = text.charAt(0);
  if (text.length < 2 || (q !== "'" && q !== '"') || text.charAt(text.length - 1) !== q) return null;
  var inner = text.slice(1, -1);
  if (new RegExp("(^|[^\\\\])(\\\\\\\\)*" + q).test(inner)) return null;  /* an unescaped quote: not one literal */
  var escapes = { n: "\n", t: "\t", r: "\r" };
  return inner.replace(/\\(.)/g, function (m, c) { return escapes[c] || c; }).trim();
}

/* errscan.lookup.logs._variants: a cut marker removed, a quoted message unquoted, quoted parts. */
function variants(text) {
  var out = [text];
  for (var i = 0; i < CUT_MARKERS.length; i++) {
    if (text.slice(-CUT_MARKERS[i].length) === CUT_MARKERS[i]) { out.push(text.slice(0, -CUT_MARKERS[i].length).trim()); break; }
  }
  var whole = unquote(text), m;
  if (whole !== null) out.push(whole);
  QUOTED.lastIndex = 0;
  while ((m = QUOTED.exec(text)) !== null) {
    var part = unquote(m[0]);
    if (part !== null && part !== whole) out.push(part);
  }
  return out;
}

/* The messages to score and their exception names: every `SomeError: message` line of a pasted
   log or traceback (with the lines that continue it), each tried with and without that prefix; a
   vLLM record at warning or above that names no exception (with its level and writer); text with
   none of these is taken whole, after any traceback frames. Each is also tried in its variants. */
function messageCandidates(text) {
  var raw = text.replace(ANSI, "").replace(/\r/g, "").split("\n");
  var untagged = raw.map(function (line) { var p; do { p = line; line = line.replace(PROCESS_TAG, ""); } while (line !== p); return line; });
  var record = untagged.map(function (line) { return LOG_PREFIX.test(line); });
  var heads = untagged.map(function (line) { var r = LOG_PREFIX.exec(line); return r ? r[0].trim() : ""; });
  var lines = raw.map(stripLine);
  var found = [], frame = null;
  lines.forEach(function (line, i) {
    var framed = FRAME.exec(line);
    if (framed) { frame = { path: framed[1].replace(/\\/g, "/"), line: +framed[2], func: framed[3] }; return; }
    if (/^Traceback \(most recent call last\)/.test(line)) frame = null;
    if (frame && /^(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception)\s*$/.test(line)) {
      found.push({ message: "", exception: line.trim().split(".").pop(), frame: frame });  /* raised without a message */
      frame = null;
      return;
    }
    var validator = PYDANTIC.exec(line);
    if (validator) {  /* a config check as pydantic prints it: `  Value error, <message> [type=...]` */
      var upto = i;
      while (upto < lines.length - 1 && lines[upto].indexOf("[type=") < 0) upto++;
      var said = [line.slice(validator[0].length)].concat(lines.slice(i + 1, upto + 1)).join("\n");
      found.push({ message: said.replace(PYDANTIC_TAIL, "").trim(), exception: null });
      return;
    }
    var prefix = /^\s/.test(line) ? null : EXCEPTION_PREFIX.exec(line);
    if (!prefix) {
      var inline = INLINE_EXCEPTION.exec(line);
      var logged = RECORD.exec(untagged[i]);
      if (!inline && logged && line.trim() && !/^\s/.test(line) && (i === 0 || heads[i - 1] !== heads[i])) {
        /* a record that names no exception is a logged error of its own (as in errscan lookup) */
        var last = i + 1;
        while (last < lines.length && heads[last] === heads[i] && !/^(Traceback|During handling|The above exception)/.test(lines[last].trim())) last++;
        found.push({ message: lines.slice(i, last).map(function (l) { return l.trim(); }).join("\n").trim(), exception: null,
                     level: RECORD_LEVEL[logged[1]], source: { file: logged[2].split("/").pop(), line: +logged[3] } });
        return;
      }
      if (!inline) return;
      var said = inline[1] ? inline[3].split("`")[0] : inline[3];  /* inline code ends at its backtick */
      found.push({ message: said.trim(), exception: inline[2].split(".").pop() });
      return;
    }
    var end = i + 1;
    while (end < lines.length && lines[end].trim() && !record[end] && !/^\s/.test(lines[end]) &&
           !EXCEPTION_PREFIX.test(lines[end]) && !/^(Traceback|During handling|The above exception)/.test(lines[end])) end++;
    var message = lines.slice(i, end).join("\n").trim();
    found.push({ message: message.slice(prefix[0].length).trim(), exception: prefix[1], frame: frame });
    found.push({ message: message, exception: prefix[1], frame: null });
    frame = null;
  });
  if (!found.length) {
    var start = 0;
    lines.forEach(function (line, i) { if (/^Traceback \(most recent call last\)/.test(line) || /^\s/.test(line)) start = i + 1; });
    if (start >= lines.length) start = 0;
    found.push({ message: lines.slice(start).join("\n").trim(), exception: null });
  }
  var read = [];
  found.forEach(function (c) {
    variants(c.message).forEach(function (message, k) { read.push(k ? Object.assign({}, c, { message: message }) : c); });
  });
  return read;
}

function fold(text) { return text.split(/\s+/).join(" ").trim(); }

/* ---- scoring: errscan.match.score_message, rule for rule (docs/matching.md) ---- */
var PIN_MIN_CHARS = 10, FUZZY_MIN = 0.5, TRUNCATED_PIN_SCORE = 0.1, SHOWN = 50;
var RULE_RANK = { frame: 4, exact: 3, truncated: 2, fuzzy: 1 };

function chars(text) { return text.replace(/\s/g, "").length; }

function words(text) {
  var found = {};
  (text.match(/[A-Za-z_][A-Za-z0-9_]*/g) || []).forEach(function (w) { found[w.toLowerCase()] = true; });
  return Object.keys(found);
}

function boundChars(groups) {
  var total = 0;
  for (var i = 1; i < groups.length; i++) total += chars((groups[i] || "").trim());
  return total;
}

/* One template against one (stripped) message: {rule, score, pinned} or null. */
function scoreMessage(entry, message, messageWords, folded) {
  var literal = entry.literal_chars;
  if (!entry.anchor || folded.indexOf(entry.anchor) >= 0) {
    if (!entry.regex) entry.regex = new RegExp(entry.pattern);
    var found = entry.regex.exec(message);
    if (found) {
      var bound = boundChars(found);
      return { rule: "exact", score: literal + bound ? literal / (literal + bound) : 0, pinned: literal >= PIN_MIN_CHARS, shown: literal };
    }
  }
  var shown = Math.min(folded.length, entry.head.length);
  if (message && literal && folded.slice(0, shown) === entry.head.slice(0, shown) && folded.indexOf(entry.lead || "") >= 0) {
    if (!entry.prefixRegex) entry.prefixRegex = new RegExp(cutPattern(entry.pattern));
    var cut = entry.prefixRegex.exec(message);
    if (cut) {
      var seen = chars(message) - boundChars(cut);
      if (seen >= PIN_MIN_CHARS) {
        var score = Math.round(seen / chars(message) * Math.min(1, seen / literal) * 1e4) / 1e4;
        return { rule: "truncated", score: score, pinned: score >= TRUNCATED_PIN_SCORE, shown: seen };
      }
    }
  }
  if (!entry.words.length || !messageWords.length) return null;
  var known = {}, shared = 0;
  messageWords.forEach(function (w) { known[w] = true; });
  entry.words.forEach(function (w) { if (known[w]) shared++; });
  var dice = 2 * shared / (entry.words.length + messageWords.length);
  return dice >= FUZZY_MIN ? { rule: "fuzzy", score: dice, pinned: false } : null;
}

/* errscan.match.evidence: a pinned literal match first, by the literal characters it shows (an
   exact match's EXACT_WEIGHT times), then exact before truncated; then the unpinned ones (little
   literal text, fuzzy): by the class agreeing, then score. */
var EXACT_WEIGHT = 1.5;
function evidence(r) {
  if (r.rule === "frame") return [0, 0, 0, 0];
  return r.pinned && r.rule !== "fuzzy" ? [2, r.shown * (r.rule === "exact" ? EXACT_WEIGHT : 1), RULE_RANK[r.rule], r.score]
                                        : [1, 0, 0, r.score];
}

/* errscan.match.cut_pattern: the exact pattern with every literal character `c` as `(?:c|$)` and
   every whitespace run as `(?:\s+|$)`, read token by token (a group, `\s+` or `\s*`, an escaped character, a character). */
var ANY = "([\\s\\S]*?)";
function cutPattern(pattern) {
  var body = pattern.slice(4, -4), out = "^\\s*", i = 0;
  while (i < body.length) {
    if (body.startsWith(ANY, i)) { out += ANY; i += ANY.length; }
    else if (body.startsWith("\\s*", i)) { out += "\\s*"; i += 3; }  /* a loose start may be missing anyway */
    else if (body.startsWith("\\s+", i)) { out += "(?:\\s+|$)"; i += 3; }
    else { var size = body[i] === "\\" || body.codePointAt(i) > 0xFFFF ? 2 : 1; out += "(?:" + body.substr(i, size) + "|$)"; i += size; }
  }
  return out + "$";
}

function versus(a, b) {  /* < 0 when a ranks before b */
  var x = evidence(a), y = evidence(b);
  return (b.framed - a.framed) || (a.catchAll - b.catchAll) || (y[0] - x[0]) || (y[1] - x[1]) || (y[2] - x[2]) ||
    (b.classAgrees - a.classAgrees) || (y[3] - x[3]);
}

function better(a, b) { return !b || versus(a, b) < 0; }

/* The traceback's innermost frame pins a site: same file (by path suffix), same function, and
   the line within the raise statement (errscan lookup's first rule; lines of other releases differ). */
function framePins(entry, frame) {
  if (!frame) return false;
  var samePath = frame.path === entry.path || frame.path.slice(-entry.path.length - 1) === "/" + entry.path;
  return samePath && entry.function.split(".").pop() === frame.func && frame.line >= entry.line && frame.line <= entry.end_line;
}

/* A record's `[file.py:123]` pins the log sites of a file of that name whose call spans that line. */
function recordPins(entry, source) {
  return !!source && entry.kind === "log" && entry.path.split("/").pop() === source.file &&
    source.line >= entry.line && source.line <= entry.end_line;
}

/* Ranked results, best first: frame, evidence, then the logged exception class agreeing, then score. */
function rank(text, entries) {
  var candidates = messageCandidates(text).filter(function (c) { return c.message || c.frame; });
  if (!candidates.length) return [];
  var prepared = candidates.map(function (c) {
    return { message: c.message, exception: c.exception, frame: c.frame, level: c.level, source: c.source,
             words: words(c.message), folded: fold(c.message) };
  });
  var results = [];
  entries.forEach(function (entry) {
    var best = null;
    var name = entry.exception.split(".").pop();
    prepared.forEach(function (p) {
      var found = p.message ? scoreMessage(entry, p.message, p.words, p.folded) : null;
      var pinned = framePins(entry, p.frame) || recordPins(entry, p.source);
      if (!found && !pinned) return;
      found = found || { rule: "frame", score: 1, pinned: true };
      found.framed = pinned;
      found.classAgrees = p.level ? entry.kind === "log" && (entry.level === "exception" ? "error" : entry.level) === p.level
                                  : p.exception !== null && name === p.exception;
      if (better(found, best)) best = found;
    });
    if (!best) return;
    best.entry = entry;
    best.catchAll = best.rule === "exact" && !entry.literal_chars;
    results.push(best);
  });
  results.sort(function (a, b) {
    return versus(a, b) || (!!a.entry.removed_since - !!b.entry.removed_since) ||
      (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : a.entry.line - b.entry.line);
  });
  /* An origin seen through its wrapper (entry.via) and the origin itself are one error: its best is kept. */
  var seenIds = {};
  return results.filter(function (r) { return !seenIds[r.entry.id] && (seenIds[r.entry.id] = true); });
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
