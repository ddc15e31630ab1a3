"""Errors across catalogs: which error is which (pairing), what changed (changes), history over
releases, the sides `errscan diff` compares, and how a diff and a history site are shown."""
