"""How the scan runs: worker processes, the cache, atomic writes, progress on the terminal."""
