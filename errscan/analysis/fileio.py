"""Whether the code a `try` guards touches files: its own calls, or those of the package's functions
they reach, as far as the call graph resolves them. The words of a handler ("write", "load") alone do
not make its failure a file's: `confirm_write_for_keys` may only update a dictionary in memory."""

from __future__ import annotations

import ast
import re
from collections import defaultdict

from errscan.extract.conditions import Condition, guarded_statements
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph
from errscan.graph.index import function_node

# Calls of the standard library (and the usual array libraries) that open, read, write or list files.
FILE_CALLS = re.compile(
    r"^(io\.|os\.|codecs\.)?(open|fdopen)$"
    r"|^os\.(remove|unlink|rename|replace|makedirs|mkdir|rmdir|listdir|scandir|stat|fsync|ftruncate|truncate|write|read"
    r"|posix_fallocate|chmod|symlink|link|lseek|pread|pwrite|path\.\w+)$"
    r"|^(shutil|tempfile|glob|mmap)\.\w+$"
    r"|\.(read_text|write_text|read_bytes|write_bytes|mkdir|unlink|rmdir|touch|iterdir)$"
    r"|^(torch|np|numpy|pickle|json|safetensors\.torch)\.(save|load|dump|memmap|fromfile|save_file|load_file)$"
)
MAX_DEPTH = 4  # calls followed from the guarded ones; deeper helpers rarely decide what a handler is about


class FileIO:
    """Answers, for one package's graph, whether a handler's guarded calls reach a file operation."""

    def __init__(self, graph: CallGraph):
        self.graph = graph
        self._calls: dict[str, list[str]] | None = None  # function node -> the callees it writes, built on first use

    def touches_files(self, module: str, scope: str, own: Condition, words: str) -> bool | None:
        """True when the calls a `raises(...)` term guards, or the package's functions they reach, call
        a file operation; False when they do not; None when the condition guards no call, or a guarded
        call leaves the package under a name whose `words` say files (`deregister_fd`): unseen, its
        name is all there is to go by."""
        guarded = [n for t in own if t.pseudo for arg in guarded_statements(t.code) for n in ast.walk(arg) if isinstance(n, ast.Call)]
        if not guarded:
            return None
        names = {fast_unparse(call.func) for call in guarded}
        if any(FILE_CALLS.search(name) for name in names):
            return True
        start = function_node(module, scope)
        edges = list(self.graph.graph.out_edges(start, data=True)) if start in self.graph.graph else []
        resolved = {site.call.callee for _, _, data in edges for site in data["sites"] if site.call is not None} & names
        seen = {callee for _, callee, data in edges
                if any(site.call is not None and site.call.callee in names for site in data["sites"])}
        frontier = set(seen)
        unseen = any(re.search(words, re.sub(r"[_.]", " ", name.lower())) for name in names - resolved)
        for _ in range(MAX_DEPTH):
            if any(FILE_CALLS.search(callee) for node in frontier for callee in self._callees(node)):
                return True
            frontier = {n for node in frontier for n in self.graph.graph.successors(node)} - seen
            seen |= frontier
        return None if unseen else False

    def _callees(self, node: str) -> list[str]:
        if self._calls is None:
            self._calls = defaultdict(list)
            for facts in self.graph.index.modules.values():
                for call in facts.calls:
                    if call.kind == "call":
                        self._calls[function_node(facts.module, call.caller)].append(call.callee)
        return self._calls.get(node, [])

