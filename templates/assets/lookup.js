/* errscan site: what a pasted message, log line or traceback is, and which errors it matches, ranked.
   The exact rule is the regular expression errscan.match.compile_template wrote into the index; the
   fuzzy score is described in docs/matching.md. Loaded before site.js on the search page. */
"use strict";

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
