"""Class definitions' facts (`extract/definitions.py`): the fields a dataclass' constructor takes."""

import ast

from errscan.extract.collect import collect_facts

SOURCE = '''
from dataclasses import dataclass, field
from pydantic import Field


@dataclass
class CacheConfig:
    block_size: int = 16
    extra: dict = field(default_factory=dict)
    num_gpu_blocks: int | None = field(default=None, init=False)
    kept: bool = field(default=False, init=True)
    computed: int = Field(default=0, init=False)
'''


def test_a_field_declared_init_false_is_no_parameter_of_the_constructor():
    (klass,) = collect_facts(ast.parse(SOURCE), "m", False).classes
    assert {f.name: f.init for f in klass.fields} == {
        "block_size": True, "extra": True, "num_gpu_blocks": False, "kept": True, "computed": False}
