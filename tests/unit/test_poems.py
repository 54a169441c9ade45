"""The Tang poems: the collection's files from a mirror or the npm package, checked; the regulated
poems the book keeps; the text the models read."""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from pathlib import Path

import pytest

from selfattn import data, poems
from selfattn.errors import DataError
from selfattn.poems import Poem, poems_text, prepared_text, regulated, source_files

QUATRAIN = "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。"  # Li Bai, five characters a line
SEVEN = "朝辭白帝彩雲間，千里江陵一日還。兩岸猿聲啼不住，輕舟已過萬重山。"  # Li Bai, seven


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return source_files()


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (QUATRAIN, True),
        (SEVEN, True),
        (QUATRAIN + SEVEN, False),  # five and seven in one poem
        ("床前明月光，疑是地上霜。舉頭望明月，低頭思故。", False),  # a line of four
        ("床前明月光，疑是地上霜。舉頭□明月，低頭思故鄉。", False),  # a character lost (□)
        ("床前明月光，疑是地上霜。舉頭望明月。低頭思故鄉，", False),  # the punctuation swapped
        ("床前明月光，疑是地上霜？", True),  # one couplet, ending in a question
        ("", False),
    ],
)
def test_a_poem_is_kept_when_every_line_has_five_or_every_line_seven_characters_in_couplets(text, kept):
    assert regulated(Poem("", "", text)) is kept


def test_the_text_is_a_couplet_a_line_and_a_blank_line_after_each_poem():
    text = prepared_text([Poem("李白", "靜夜思", QUATRAIN), Poem("", "", "□"), Poem("李白", "", SEVEN)])
    assert text == (
        "床前明月光，疑是地上霜。\n舉頭望明月，低頭思故鄉。\n\n朝辭白帝彩雲間，千里江陵一日還。\n兩岸猿聲啼不住，輕舟已過萬重山。\n\n"
    )


def test_the_collection_has_57607_tang_poems_in_58_files(files):
    assert len(files) == 58 and list(files)[:2] == ["poet.tang.0.json", "poet.tang.1000.json"]
    everything = poems.read_poems(files)
    assert len(everything) == 57_607
    assert everything[0].author == "太宗皇帝" and everything[0].text.startswith("秦川雄帝宅，函谷壯皇居。")


def test_the_books_text_is_made_once_and_checked(tmp_path, monkeypatch, files):
    monkeypatch.setenv(data.DOWNLOAD_CACHE_ENV, str(tmp_path))
    text = poems_text()
    assert hashlib.sha256(text.encode()).hexdigest() == poems.TEXT_SHA256
    kept = text.split("\n\n")[:-1]
    assert len(kept) == 47_079
    assert {ch for ch in text if not re.fullmatch(poems.HAN, ch)} == set("，。？！\n")
    assert len(set(text)) == 8_332 + 4 + 1  # characters, punctuation, the line break
    assert kept[0].splitlines()[0] == "秦川雄帝宅，函谷壯皇居。"
    (tmp_path / poems.TEXT).write_text("spoiled", encoding="utf-8")
    assert poems_text() == text  # a spoiled copy is made again


def packed(files: dict[str, bytes], folder: str = poems.IN_PACKAGE) -> bytes:
    """A tarball laid out as the npm package's, holding ``files``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, payload in {
            "package/package.json": b"{}",
            **{folder + n: b for n, b in files.items()},
        }.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))
    return out.getvalue()


def serve_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tarball: bytes) -> None:
    """No mirror, and the npm package served from a local file."""
    (tmp_path / "package.tgz").write_bytes(tarball)
    url = (tmp_path / "package.tgz").as_uri()
    monkeypatch.setattr(
        poems, "PACKAGE", data.Remote(poems.PACKAGE.name, url, hashlib.sha256(tarball).hexdigest())
    )
    monkeypatch.setenv(data.DOWNLOAD_CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(data.MIRROR_ENV, raising=False)


def test_without_a_mirror_the_files_come_from_the_npm_package(tmp_path, monkeypatch, files):
    serve_package(tmp_path, monkeypatch, packed(files))
    assert source_files() == files


def test_other_files_are_refused_by_name(tmp_path, monkeypatch, files):
    spoiled = {**files, "poet.tang.0.json": b"[]"}
    serve_package(tmp_path, monkeypatch, packed(spoiled))
    with pytest.raises(DataError, match="are not those of chinese-poetry 2.0.1"):
        source_files()
    mirror = tmp_path / "mirror"
    (mirror / poems.FOLDER).mkdir(parents=True)
    for name, payload in spoiled.items():
        (mirror / poems.FOLDER / name).write_bytes(payload)
    monkeypatch.setenv(data.MIRROR_ENV, str(mirror))
    with pytest.raises(
        DataError, match=r"Tang poems in .*mirror.chinese-poetry are not those of chinese-poetry 2\.0\.1"
    ):
        source_files()


def test_a_mirror_without_the_poems_says_what_to_put_where(tmp_path, monkeypatch):
    monkeypatch.setenv(data.MIRROR_ENV, str(tmp_path))
    with pytest.raises(DataError, match=r"holds no poet\.tang\.\*\.json files\. Put there the files"):
        source_files()
