"""Lookup: from log text or a traceback to the catalogued error, its raise site and its page."""

from errscan.lookup.rank import Candidate, CatalogMatcher, Finding, lookup

__all__ = ["Candidate", "CatalogMatcher", "Finding", "lookup"]
