"""Log understanding: the exceptions in arbitrary log text, with their messages and frames.

Logs are noisy: ANSI colours, a `kubectl --timestamps` time, process tags that vLLM and Ray put
before every line (`(EngineCore_DP0 pid=1234)`, `(Worker rank=0)`, `[rank0]:`), vLLM's record
prefix (`ERROR 08-14 12:00:01 [core.py:123]`, repeated on each line of a multi-line record), lines
of several processes interleaved, messages wrapped or cut short, messages quoted as `repr`, and
logs pasted into a script's comments (`# `) or a Markdown quote (`> `), or an exception named in
the middle of a line of prose or inline code.
Each line is stripped of that noise first; lines are then grouped by process tag so that the
lines of one process read as one stream, and each stream is parsed for tracebacks and exception
lines. What a message really is cannot always be decided here (where does a wrapped message end,
was a break inside a word), so every error carries its possible readings and the matcher picks.
A vLLM record at level WARNING or above that names no exception is a logged error too: its
message is what a log site wrote, and its `[file.py:123]` says which call wrote it.
"""

from __future__ import annotations

import re
from collections import namedtuple

MAX_MESSAGE_LINES = 30  # continuation lines read after an exception line (or of a bare message)
MAX_LINE_CHARS = 20_000  # a longer line is read by its beginning: parsing stays linear in the input
# A message is matched on its first characters only: placeholders match any text, so the cost of
# a match grows fast with length, and no template needs more to be told apart.
MAX_MESSAGE_CHARS = 2000

_ANSI = re.compile(
    r"\x1b\[[0-9;?]*[A-Za-z]"  # colours and cursor moves (CSI)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # a terminal title or link (OSC): never echoed back
    r"|\x1b[@-Z\\-_]"  # other escapes
    r"|\[\d+(?:;\d+)*m"  # colours whose ESC a log shipper dropped
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s")
_PROCESS_TAG = re.compile(
    r"\((?P<tag>[A-Za-z][\w.\-]*(?:\s+[A-Za-z][\w.\-]*)*(?:[ ,]+[\w.\-]+=[^\s,)]*)+)\)\s?"
    r"|\((?P<bare>[A-Za-z][\w.\-]*)\)\s(?=(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s)"
    r"|\[(?P<rank>rank\d+)\]:\s?"
)
_RECORD = re.compile(
    r"(?P<record>(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:[.,]\d+)?"
    r"\s+(?:\[[^\]\s]+:\d+\]|[^\s\]]+:\d+\]))\s?"
)
_RECORD_SOURCE = re.compile(r"(?<![^\s\[\]])(?P<file>[^\s\[\]]+):(?P<line>\d+)\]$")
_RECORD_LEVELS = {"WARNING": "warning", "WARN": "warning", "ERROR": "error", "CRITICAL": "critical", "FATAL": "critical"}
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\s*$")
_CHAIN = re.compile(
    r"(The above exception was the direct cause of the following exception:"
    r"|During handling of the above exception, another exception occurred:)\s*$"
)
_FRAME = re.compile(r'\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>\S+(?:\s+\S+)*)\s*$')
_NAME = r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*"
_EXCEPTION_LINE = re.compile(rf"(?P<exception>{_NAME})(?::(?P<message>.*))?$")
_ERROR_NAME = r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)"
_LOOSE_EXCEPTION_LINE = re.compile(rf"(?P<exception>{_ERROR_NAME}):(?P<message>.*)$")
# An exception named after other words: "attempt 2 ValueError: ...", "crashed with `KeyError: ...`".
_INLINE_EXCEPTION = re.compile(rf"(?:^|(?<=[\s(]))(?P<code>`?)(?P<exception>{_ERROR_NAME}):(?P<message>.*)$")
_QUOTE_PREFIX = re.compile(r"(?:#+|>+|//)(?: |\t|$)")  # a comment or Markdown quote around a pasted log
# A name starts where no dotted name goes on: "a.a.a…" is then tried once, not from each "a".
_REPR = re.compile(rf"(?<!\w)(?<!\w\.)(?P<exception>{_ERROR_NAME})\((?P<quoted>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.){12,})'|\"((?:[^\"\\]|\\.){12,})\"")
_CUT_MARKERS = ("[truncated]", "(truncated)", "<truncated>", "[...]", "…", "...")
# pydantic's rendering of a validator's error: `  Value error, <message> [type=value_error, ...]`.
_PYDANTIC = re.compile(r"^[ \t]*(?:Value|Assertion) error, ", re.M)
_PYDANTIC_TAIL = re.compile(r"\s*\[type=\w+[^\]]*\][\s\S]*$")


# Named tuples, not dataclasses, as in errscan.match: lookup should start fast.
Frame = namedtuple("Frame", "path line function")  # path as printed, "/"-separated

# Where a log record says it was written: `[file.py:123]` (vLLM prints the file's name only).
RecordSource = namedtuple("RecordSource", "file line")


class LoggedError(namedtuple("LoggedError", "exception lines frames line level source", defaults=("", None))):
    """One exception, or one log record at level warning or above, as the log shows it.

    `exception`: as printed ("vllm.x.HandshakeError", "ValueError"), "" when the log names none;
    `lines`: the message's first line and the lines that may continue it; `frames`: its traceback
    (Frames), outermost first, () when the log shows none; `line`: 1-based line of the input where
    it starts; `level`: a log record's ("warning", "error" or "critical"), "" for an exception;
    `source`: a log record's writer (RecordSource) as its prefix names it, or None."""

    __slots__ = ()

    @property
    def short_exception(self) -> str:
        return self.exception.rsplit(".", 1)[-1]

    @property
    def message(self) -> str:
        return self.lines[0] if self.lines else ""

    def readings(self) -> tuple[str, ...]:
        """Every text the message may be, first line first: more continuation lines, wrapped lines
        joined without a break, a cut marker removed, a `repr` unquoted, a quoted inner message."""
        found: dict[str, None] = {}
        for count in range(1, len(self.lines) + 1):
            taken = self.lines[:count]
            for text in ("\n".join(taken), "".join(taken)):
                for reading in _variants(text.strip()[:MAX_MESSAGE_CHARS]):
                    found.setdefault(reading, None)
        return tuple(found) or ("",)


# stream: the process tags, joined; record: vLLM's record prefix, "" when there is none
_Line = namedtuple("_Line", "number stream record text")


def find_errors(text: str) -> list[LoggedError]:
    """The errors of `text` in order of appearance, each once (repeats across ranks fold)."""
    lines = [_clean(number, raw[:MAX_LINE_CHARS]) for number, raw in enumerate(text.splitlines(), 1)]
    streams: dict[str, list[_Line]] = {}
    for line in lines:
        streams.setdefault(line.stream, []).append(line)
    found: list[LoggedError] = []
    for stream in streams.values():
        found.extend(_parse_stream(stream))
    if not found:
        bare = [line for line in lines if line.text.strip()][: 1 + MAX_MESSAGE_LINES]
        if bare:  # a message given without its exception name
            found.append(LoggedError("", tuple(line.text.strip() for line in bare), (), bare[0].number))
    return _fold_repeats(sorted(found, key=lambda error: error.line))


def _clean(number: int, raw: str) -> _Line:
    text = _CONTROL.sub("", _ANSI.sub("", raw))
    tags: list[str] = []
    record = ""
    start = 0  # of the text after the prefixes read so far (the text is not copied for each one)
    while True:
        if (timestamp := _TIMESTAMP.match(text, start)) is not None:
            start = timestamp.end()
        elif (tag := _PROCESS_TAG.match(text, start)) is not None:
            tags.append(tag.group("tag") or tag.group("bare") or tag.group("rank"))
            start = tag.end()
        elif (prefix := _RECORD.match(text, start)) is not None:
            record = prefix.group("record")
            start = prefix.end()
        elif (quote := _QUOTE_PREFIX.match(text, start)) is not None:
            start = quote.end()
        else:
            break
    return _Line(number, " ".join(tags), record, text[start:].rstrip())


def _parse_stream(lines: list[_Line]) -> list[LoggedError]:
    found: list[LoggedError] = []
    frames: list[Frame] | None = None  # inside a traceback: its frames so far
    for index, line in enumerate(lines):
        text = line.text
        if _TRACEBACK.search(text):
            frames = []
            continue
        if frames is not None:
            if (frame := _FRAME.match(text)) is not None:
                frames.append(Frame(frame["path"].replace("\\", "/"), int(frame["line"]), frame["function"]))
                continue
            if not text.strip() or text[:1].isspace():  # source lines, carets, blank lines
                continue
            named = _EXCEPTION_LINE.match(text)
            if named is not None:
                found.append(_error(named, lines, index, tuple(frames)))
            frames = None
            if named is not None:
                continue
        if _CHAIN.search(text):
            continue
        if (loose := _INLINE_EXCEPTION.search(text)) is not None:
            found.append(_error(loose, lines, index, ()))
        elif line.record and (index == 0 or lines[index - 1].record != line.record):
            record = _record(lines, index)
            if record is not None:
                found.append(record)
        for quoted in _REPR.finditer(text):
            message = _unquote(quoted["quoted"])
            if message is not None:
                found.append(LoggedError(quoted["exception"], (message,), (), line.number))
    return found


def _error(found: re.Match, lines: list[_Line], index: int, frames: tuple[Frame, ...]) -> LoggedError:
    """An exception line and the lines that may continue its message (same record, no new start)."""
    first = lines[index]
    message = [(found["message"] or "").strip()]
    if found.groupdict().get("code") and "`" in message[0]:
        # inline code ends at its closing backtick, and so does the message
        return LoggedError(found["exception"], (message[0].split("`", 1)[0].strip(),), frames, first.number)
    for line in lines[index + 1 : index + 1 + MAX_MESSAGE_LINES]:
        text = line.text
        if line.record != first.record or not text.strip():
            break
        if _TRACEBACK.search(text) or _CHAIN.search(text) or _FRAME.match(text):
            break
        if _LOOSE_EXCEPTION_LINE.match(text):  # the next error begins
            break
        message.append(text.strip())
    return LoggedError(found["exception"], tuple(message), frames, first.number)


def _record(lines: list[_Line], index: int) -> LoggedError | None:
    """The log record starting at `lines[index]`, when its level is warning or above: its message
    runs on while the lines carry the same prefix, up to a traceback it prints."""
    first = lines[index]
    level = _RECORD_LEVELS.get(first.record.split(None, 1)[0])
    source = _RECORD_SOURCE.search(first.record)
    if level is None or not first.text.strip() or first.text[:1].isspace():
        # An indented first line (`    raise ValueError(`) is the middle of a traceback that a
        # paste begins in, not the start of a message: the exception line below it is the error.
        return None
    message = [first.text.strip()]
    for line in lines[index + 1 : index + 1 + MAX_MESSAGE_LINES]:
        if line.record != first.record or _TRACEBACK.search(line.text) or _CHAIN.search(line.text):
            break
        message.append(line.text.strip())
    where = RecordSource(source["file"].rsplit("/", 1)[-1], int(source["line"])) if source else None
    return LoggedError("", tuple(message), (), first.number, level, where)


def _variants(text: str) -> list[str]:
    out = [text]
    for marker in _CUT_MARKERS:
        if text.endswith(marker):
            out.append(text[: -len(marker)].rstrip())
            break
    unquoted = _unquote(text)
    if unquoted is not None:
        out.append(unquoted)
    if (validator := _PYDANTIC.search(text)) is not None:  # a config class's check, as pydantic prints it
        out.append(_PYDANTIC_TAIL.sub("", text[validator.end() :]).strip())
    for inner in _QUOTED.finditer(text):
        value = _unquote(inner.group())
        if value is not None and value != unquoted:
            out.append(value)
    return out


def _unquote(text: str) -> str | None:
    """The string a `repr` shows, or None when `text` is not one quoted string literal."""
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    import ast  # here: most inputs quote no repr, and lookup should start fast
    import warnings

    try:
        with warnings.catch_warnings():  # an invalid escape ('\K') is a warning, printed by 3.12
            warnings.simplefilter("ignore")
            value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return value.strip() if isinstance(value, str) else None


def _fold_repeats(errors: list[LoggedError]) -> list[LoggedError]:
    """The same exception and message printed again (by each rank, by a chained re-raise) is one
    error; the copy that shows the most traceback frames is kept, at the first copy's place."""
    kept: dict[tuple[str, str], LoggedError] = {}
    for error in errors:
        key = (error.short_exception, error.message)
        first = kept.get(key)
        if first is None:
            kept[key] = error
        elif len(error.frames) > len(first.frames):
            kept[key] = LoggedError(error.exception, error.lines, error.frames, first.line, error.level, error.source)
    return list(kept.values())
