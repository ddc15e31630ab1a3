"""The site's JSON API: its documents declared once (documents.py, from the records in
errscan.model), written as sorted JSON, read back by `diff` and `lookup` (read.py), and described
by api/schema.json (schema.py). Nothing here imports the scan or the page renderer, so reading a
site starts fast."""
