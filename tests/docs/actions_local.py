"""A job of a GitHub Actions workflow run here, as far as it can be without GitHub.

`run:` steps run as the runner runs them (`bash -e -o pipefail`, the job's and step's `env`, what a
step appends to `$GITHUB_ENV`), with `${{ }}` expressions and `if:` conditions evaluated for the
plain forms a workflow uses (names, quoted strings, `==`, `!=`). `uses:` steps are stood in for:
checkout clones a local repository, setup-python puts a venv first on PATH, the cache is the
user's own cache folder (a cache hit), upload-pages-artifact checks its folder; the rest (the
deployment) is recorded as not run. `gh` is a script that records its arguments and the body file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_COMPARISON = re.compile(r"^(.+?)\s*(==|!=)\s*(.+)$")
_GH = """#!/bin/sh
# gh stand-in: records the call, and the body file's text, one JSON line each
exec "{python}" -c 'import json, sys, pathlib
args = sys.argv[1:]
body = pathlib.Path(args[args.index("--body-file") + 1]).read_text() if "--body-file" in args else None
with open("{log}", "a") as log:
    log.write(json.dumps({{"args": args, "body": body}}) + "\\n")' "$@"
"""


@dataclass
class StepRun:
    name: str
    ran: bool  # False: its `if:` was false, or it is a `uses:` step with no stand-in here
    returncode: int = 0
    output: str = ""


@dataclass
class JobRun:
    steps: list[StepRun] = field(default_factory=list)
    workspace: Path | None = None
    gh_calls: list[dict] = field(default_factory=list)
    uploaded: Path | None = None  # the Pages artifact's folder

    @property
    def failed(self) -> StepRun | None:
        return next((s for s in self.steps if s.returncode != 0), None)


def run_job(workflow: dict, job: str, *, event: str, github: dict, origin: Path, ref: str,
            python_bin: Path, home_env: dict[str, str], root: Path, env_overrides: dict[str, str] | None = None) -> JobRun:
    """Run `job` of `workflow` for `event` in a folder under `root`, checking `ref` of `origin` out.

    `github` is the `github` context (event_name is set from `event`); `python_bin` the bin/ of the
    venv setup-python stands for; `home_env` the variables kept from this machine (HOME, PATH,
    pip's settings). A step that fails ends the job, as on GitHub.
    """
    spec = workflow["jobs"][job]
    context = {"github": {**github, "event_name": event}, "steps": {}}
    env = {**workflow.get("env", {}), **spec.get("env", {}), **(env_overrides or {})}
    result = JobRun(workspace=root / "workspace")
    if not _condition(spec.get("if"), {**context, "env": env}):
        return result
    bin_dir = root / "stand-ins"
    bin_dir.mkdir(parents=True)
    (bin_dir / "gh").write_text(_GH.format(python=sys.executable, log=root / "gh.jsonl"))
    (bin_dir / "gh").chmod(0o755)
    github_env = root / "github_env"
    path = f"{bin_dir}{os.pathsep}{home_env.get('PATH', '')}"
    for number, step in enumerate(spec["steps"], 1):
        scope = {**context, "env": env}
        name = step.get("name") or step.get("uses") or step["run"].splitlines()[0]
        if not _condition(step.get("if"), scope):
            result.steps.append(StepRun(name, ran=False))
            continue
        if "uses" in step:
            done = _stand_in(step, result, origin, ref, scope)
            if done is None:
                result.steps.append(StepRun(name, ran=False))
                continue
            if step["uses"].startswith("actions/setup-python"):
                path = f"{python_bin}{os.pathsep}{path}"
            result.steps.append(done)
        else:
            step_env = {k: _expand(str(v), scope) for k, v in {**env, **step.get("env", {})}.items()}
            github_env.write_text("")
            variables = {**home_env, **step_env, "PATH": path, "GITHUB_ENV": str(github_env), "CI": "true",
                         "GITHUB_BASE_REF": github.get("base_ref", "")}
            done = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", _expand(step["run"], scope)],
                                  cwd=result.workspace, env=variables, capture_output=True, text=True)
            result.steps.append(StepRun(name, True, done.returncode, done.stdout + done.stderr))
            for line in github_env.read_text().splitlines():
                key, _, value = line.partition("=")
                env[key] = value
        if result.steps[-1].returncode != 0:
            break
    log = root / "gh.jsonl"
    result.gh_calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return result


def _stand_in(step: dict, job: JobRun, origin: Path, ref: str, scope: dict) -> StepRun | None:
    action = step["uses"].partition("@")[0]
    options = {k: _expand(str(v), scope) for k, v in step.get("with", {}).items()}
    if action == "actions/checkout":
        depth = [] if options.get("fetch-depth") == "0" else ["--depth", "1", "--no-single-branch"]
        clone = subprocess.run(["git", "clone", "-q", *depth, f"file://{origin}", str(job.workspace)], capture_output=True, text=True)
        if clone.returncode == 0:
            clone = subprocess.run(["git", "checkout", "-q", ref], cwd=job.workspace, capture_output=True, text=True)
        return StepRun(action, True, clone.returncode, clone.stderr)
    if action in ("actions/setup-python", "actions/cache"):
        return StepRun(action, True)  # the venv goes on PATH; the cache is the user's own folder
    if action == "actions/upload-pages-artifact":
        job.uploaded = job.workspace / options["path"]
        found = (job.uploaded / "index.html").is_file()
        return StepRun(action, True, 0 if found else 1, "" if found else f"no index.html in {job.uploaded}")
    return None  # e.g. actions/deploy-pages: needs GitHub


def _expand(text: str, scope: dict) -> str:
    return _EXPRESSION.sub(lambda m: str(_value(m.group(1), scope)), text)


def _condition(expression: str | None, scope: dict) -> bool:
    if expression is None:
        return True
    inner = _EXPRESSION.fullmatch(expression.strip())
    expression = inner.group(1) if inner else expression
    compared = _COMPARISON.match(expression.strip())
    if compared is None:
        return bool(_value(expression.strip(), scope))
    left, operator, right = compared.groups()
    equal = _value(left.strip(), scope) == _value(right.strip(), scope)
    return equal if operator == "==" else not equal


def _value(operand: str, scope: dict):
    """A quoted string, or a dotted name in the contexts (missing: "", as GitHub gives)."""
    if len(operand) >= 2 and operand[0] == operand[-1] == "'":
        return operand[1:-1]
    value = scope
    for part in operand.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value
