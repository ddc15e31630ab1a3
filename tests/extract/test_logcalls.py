"""Log sites: which calls are sites (the generic rules and a profile's helpers), their levels and
their message templates, alike from libcst and from the ast fallback."""

from conftest import FIXTURES, source_file
from errscan.extract import extract_file, extract_file_from_ast
from errscan.extract.logcalls import LogCalls

HELPERS = LogCalls((("warning_once", "warning"),))
EXPECTED = [  # (line, level, exception, template)
    (10, "warning", "", "rank {rank} is beyond {n} (100%)"),
    (11, "error", "", "worker {rank} failed"),
    (12, "critical", "", "{rank} of {n} down"),
    (13, "exception", "", "{rank} broke"),
    (14, "warning", "", "100%% literal, no args"),
    (15, "warning", "", "only once: {rank}"),
    (17, "warning", "DeprecationWarning", "deprecated since {n}"),
    (18, "warning", "UserWarning", "plain"),
]


def logs(logs: LogCalls = HELPERS, from_ast: bool = False):
    source = source_file(FIXTURES / "patterns" / "logs.py", "pkg/logs.py")
    result = extract_file_from_ast(source, True, "test", logs=logs) if from_ast else extract_file(source, True, logs=logs)
    return [(s.line, s.level, s.exception, s.message) for s in result.sites if s.kind == "log"]


def test_log_calls_are_sites_with_level_and_template():
    assert logs() == EXPECTED


def test_a_projects_helper_is_a_site_only_where_its_profile_names_it():
    assert logs(LogCalls()) == [site for site in EXPECTED if site[0] != 15]


def test_the_ast_fallback_finds_the_same_sites_and_levels():
    found = logs(from_ast=True)
    assert [(line, level, exception) for line, level, exception, _ in found] == [s[:3] for s in EXPECTED]
    assert found[0][3] == "rank {rank} is beyond {n} (100%)"  # %-style read from the literal alone


def test_level_of_a_callee():
    assert LogCalls().level("self._logger.fatal") == "critical"
    assert LogCalls().level("LOG.warn") == "warning"
    assert LogCalls().level("warnings.warn") == "warning"
    assert LogCalls().level("parser.error") is None  # argparse, not a logger
    assert LogCalls().level("logger.info") is None
