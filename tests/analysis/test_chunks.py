"""The sites split for analysis apart: whole raising functions per chunk, the dearest first."""

from errscan.analysis.chunks import chunk_sites, in_order


def test_a_function_s_sites_stay_in_one_chunk_and_every_site_is_in_one():
    nodes = ["a", "b", "a", "c", "b", "a", "d"]
    chunks = chunk_sites(nodes, lambda node: 1, count=3)
    assert sorted(p for chunk in chunks for p in chunk) == list(range(len(nodes)))
    for node in set(nodes):
        assert sum(1 for chunk in chunks if any(nodes[p] == node for p in chunk)) == 1


def test_the_dearest_function_comes_first_and_cheap_ones_share_a_chunk():
    callers = {"cheap1": 0, "cheap2": 0, "cheap3": 0, "dear": 30, "middle": 10}
    nodes = ["cheap1", "cheap2", "dear", "cheap3", "middle"]
    # costs 32, 12 and 2 each: a chunk closes once it holds a quarter of the 50
    assert chunk_sites(nodes, lambda node: 1 + callers[node], count=4) == [(2,), (4, 0), (1, 3)]


def test_chunks_depend_on_the_sites_alone():
    nodes = [f"f{i % 17}" for i in range(200)]
    assert chunk_sites(nodes, len) == chunk_sites(list(nodes), len)
    assert len(chunk_sites(nodes, len, count=64)) == 17  # no more chunks than functions


def test_in_order_runs_each_chunk_here_in_order():
    assert in_order(lambda chunk: [p * 2 for p in chunk], [(1, 2), (3,)]) == [[2, 4], [6]]
