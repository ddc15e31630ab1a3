"""Render: the catalog as a static site (HTML pages, browse lists, search index, JSON API), written atomically.

Layout: index.html (browse), errors/<id>/index.html, browse/<group>.html, search/index.html,
data/*.js (search and filter index), assets/ (one stylesheet, one script), api/ (JSON and schema,
written by errscan.api). `site.write_site` builds it; `pages` holds the page templates' side.
"""
