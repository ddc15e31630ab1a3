"""What a `try` guards reads (`extract/tried.py`): its statements, and what its calls are passed."""

import ast

from errscan.extract.collect import collect_facts

SOURCE = '''
class C:
    def listen(self, ctx):
        sock = ctx.socket()
        sock.bind(self.own_host)
        try:
            self.queue.put(sock.recv())
        except Exception:
            pass

    def register(self, client):
        url = f"http://{self.server_host}/register"
        payload = {"addr": self.own_host}
        try:
            client.post(url, json=payload)
        except Exception:
            pass
'''


def test_a_try_reads_its_statements_and_the_locals_its_calls_are_passed_not_its_receivers_set_up():
    tries = {t.scope: set(t.reads) for t in collect_facts(ast.parse(SOURCE), "m", False).tries}
    assert tries["C.listen"] == {("queue", "")}  # `sock` was bound to `own_host` before: not read here
    assert tries["C.register"] == {("server_host", "client.post:0"), ("own_host", "client.post:json")}


def test_the_reads_through_a_local_come_in_one_order_whatever_the_hash_seed():
    # `spec` reads eight attributes: a frozenset's order of them matches sorted order by chance once in 40,320 seeds
    source = """
class C:
    def send(self, client):
        spec = (self.h, self.g, self.f, self.e, self.d, self.c, self.b, self.a)
        try:
            client.post(spec)
        except Exception:
            pass
"""
    (tried,) = collect_facts(ast.parse(source), "m", False).tries
    assert [attribute for attribute, _ in tried.reads] == list("abcdefgh")
