"""The site's JSON API: its documents declared once (documents.py, from the records in
errscan.model), written as sorted JSON, read back by `diff` and `show` (read.py) and, as plain JSON,
by `lookup` (errscan/lookup/shards.py), and described by api/schema.json (schema.py). Nothing here
imports the scan or the page renderer, so reading a site starts fast; this module and layout.py
import nothing heavier than `re`, for lookup."""

SCHEMA_VERSION = 9  # 2: records carry `explanation`; 3: call-graph edges carry `receiver`; 4: log sites (`kind` "log", `level`);
# 5: api/callgraph.json integer-indexed and only toward catalogued functions, api/matcher.json; 6: `surfaces_as`;
# 7: `Trigger.http_status`; 8: `Explanation.reproduce` and `check`; `Trigger.satisfiable`, `reachable`, `unreachable`,
# `infeasible_chains`, `Chain.satisfiable`, `infeasible`
# 9: api/matcher.json split by key into api/matcher/ (index, keys/<b>, rows/<r>, frames); `CallGraphDocument.base_calls_narrowed`
