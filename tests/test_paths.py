"""Every file of this repository that its prose names exists: the README, the docs, the configs, the
package's and the benchmarks' code, and the test modules' docstrings. Files move between rooms; a path
left behind sends a reader to nothing."""

import ast
import re

from tests.helpers import ROOT

# a repository path with a file extension, not part of a longer path or word
NAMED = re.compile(
    r"(?<![\w./-])((?:rlfw|benchmarks|conf|docs|tests|plugins)/[\w/.-]+\.(?:py|yaml|md|txt|png|csv|json))"
)
PROSE = ["README.md", "plugins/README.md", "docs/**/*.md", "conf/**/*.yaml", "rlfw/**/*.py", "benchmarks/**/*.py"]


def named_paths(text: str) -> set[str]:
    return set(NAMED.findall(text))


def test_the_pattern_finds_paths_in_prose_and_leaves_other_words():
    text = "see tests/run/test_gpu.py, `conf/env/pong.yaml` and docs/guide/atari.md. Not a/tests/x.py or rlfw/conf/"
    assert named_paths(text) == {"tests/run/test_gpu.py", "conf/env/pong.yaml", "docs/guide/atari.md"}


def test_every_path_the_prose_names_exists():
    texts = {p: p.read_text() for pattern in PROSE for p in ROOT.glob(pattern)}
    # test modules: their docstrings only (their string literals are expected outputs, not references)
    texts |= {p: ast.get_docstring(ast.parse(p.read_text())) or "" for p in (ROOT / "tests").rglob("*.py")}
    missing = sorted(
        f"{p.relative_to(ROOT)} names {name}"
        for p, text in texts.items()
        for name in named_paths(text)
        if not (ROOT / name).exists()
    )
    assert len(texts) > 100 and not missing, missing
