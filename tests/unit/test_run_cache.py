"""Trained runs are kept and reused, and a change in what they depend on trains afresh."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from selfattn import ATTENTION, fit, run_cache
from tests.helpers import keep_runs_in, same_weights

SHORT = replace(ATTENTION, max_iters=30, eval_interval=10, eval_iters=5)


@pytest.fixture
def runs(tmp_path, monkeypatch):
    keep_runs_in(monkeypatch, tmp_path / "runs")
    return tmp_path / "runs"


def test_a_second_fit_loads_the_first(runs):
    model, history = fit("attention", SHORT)
    assert len(list(runs.glob("*.pt"))) == 1
    again, same = fit("attention", SHORT)
    assert same == history and same.seconds == history.seconds, "the history, training time included"
    assert same_weights(model, again)


def test_the_loaded_model_equals_a_fresh_training(runs, monkeypatch):
    model, history = fit("attention", SHORT)
    monkeypatch.setenv(run_cache.OFF_ENV, "1")
    fresh, fresh_history = fit("attention", SHORT)
    assert fresh_history.val_loss == history.val_loss
    assert same_weights(model, fresh)


def test_the_old_name_still_turns_the_cache_off(runs, monkeypatch):
    monkeypatch.setenv(run_cache.OLD_OFF_ENV, "1")
    assert run_cache.turned_off() == run_cache.OLD_OFF_ENV and run_cache.cache_folder() is None
    monkeypatch.setenv(run_cache.OFF_ENV, "0")
    assert run_cache.turned_off() == run_cache.OLD_OFF_ENV, "0 leaves it on, the old name still off"
    monkeypatch.delenv(run_cache.OLD_OFF_ENV)
    assert run_cache.turned_off() is None and run_cache.cache_folder() == runs


def test_another_config_or_kind_is_another_run(runs):
    keys = {run_cache.run_key("attention", SHORT), run_cache.run_key("attention", replace(SHORT, seed=1))}
    keys.add(run_cache.run_key("multihead", replace(SHORT, n_head=4)))
    assert len(keys) == 3


@pytest.fixture
def package(tmp_path):
    """A copy of the package's source, to change."""
    copy = tmp_path / "selfattn"
    shutil.copytree(run_cache.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def test_a_change_in_a_models_source_trains_afresh(runs, package):
    before = run_cache.run_key("attention", SHORT, package)
    assert before == run_cache.run_key("attention", SHORT), "the copy has the same key as the package"
    fit("attention", SHORT)
    assert (runs / f"{before}.pt").is_file()
    edit(package / "models.py", "wei = F.softmax(wei, dim=-1)", "wei = wei.softmax(-1)")
    after = run_cache.run_key("attention", SHORT, package)
    assert after != before
    assert run_cache.load(runs, after) is None, "nothing saved under the new key yet"


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("threads.py", "torch.set_num_threads", "torch.set_num_interop_threads"),  # decides the sums
        ("arithmetic.py", '"avx2"', '"default"'),  # decides the CPU kernels
    ],
)
def test_the_key_covers_every_module_training_imports(package, module, old, new):
    before = run_cache.run_key("attention", SHORT, package)
    edit(package / module, old, new)
    assert run_cache.run_key("attention", SHORT, package) != before


def test_comments_and_modules_training_does_not_import_leave_the_key(package):
    before = run_cache.run_key("attention", SHORT, package)
    edit(package / "models.py", "import torch\n", "import torch  # a comment\n")
    edit(package / "heatmaps.py", "import numpy as np", "import numpy as np\nimport os")
    edit(
        package / "figures" / "figures.js",
        "function",
        "function /* a comment */",
    )
    assert run_cache.run_key("attention", SHORT, package) == before


def test_the_build_digest_covers_the_figures_script(package):
    before = run_cache.code_digest(run_cache.every_module(package), package)
    assert before == run_cache.code_digest(run_cache.every_module()), "the copy digests as the package"
    edit(package / "figures" / "figures.js", "function", "function /* a comment */")
    assert run_cache.code_digest(run_cache.every_module(package), package) != before


def test_without_the_variable_runs_are_kept_in_the_readers_cache(tmp_path, monkeypatch):
    keep_runs_in(monkeypatch, None)
    monkeypatch.setenv("SELFATTN_CACHE", str(tmp_path / "downloads"))
    assert run_cache.cache_folder() == tmp_path / "downloads" / "runs"
    monkeypatch.setenv(run_cache.RUN_CACHE_ENV, str(tmp_path))
    assert run_cache.cache_folder() == tmp_path
    monkeypatch.setenv(run_cache.OFF_ENV, "1")
    assert run_cache.cache_folder() is None


def test_where_runs_are_kept_and_fetched_from_leaves_the_key(package):
    before = run_cache.run_key("attention", SHORT, package)
    edit(package / "run_cache.py", "def has(", "def _unused() -> None:\n    pass\n\n\ndef has(")
    edit(package / "published.py", "TIMEOUT = 5.0", "TIMEOUT = 6.0")
    assert run_cache.run_key("attention", SHORT, package) == before


def test_a_new_run_of_the_book_trains_nothing_else_again(package):
    before = run_cache.run_key("attention", SHORT, package)
    edit(
        package / "runs.py",
        "def book_runs(",
        "ANOTHER = Run('gpt', TrainConfig(max_iters=10))\n\n\ndef book_runs(",
    )
    assert run_cache.run_key("attention", SHORT, package) == before, "each run's config is in its own key"


def test_two_processes_wanting_one_run_train_it_once(runs):
    with ThreadPoolExecutor(2) as pool:  # each claim opens the lock file anew, as a process does
        (_, first), (_, second) = pool.map(lambda _: fit("attention", SHORT), range(2))
    assert first.seconds == second.seconds, "the second loaded what the first trained"
    assert len(list(runs.glob("*.pt"))) == 1
