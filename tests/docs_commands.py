"""The shell commands the README, ``docs/index.md`` and ``docs/guide/*.md`` show, as ``tests/test_docs.py``
checks them: each ```` ```bash ```` block's lines (``\\`` continues a line, ``&&`` chains commands, ``#``
starts a comment), and each ``$ `` line of a plain block (a transcript: the ``rlfw:`` line after it is
what rlfw prints)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import ROOT

DOCS = ["README.md", "docs/index.md", *sorted(f"docs/guide/{p.name}" for p in (ROOT / "docs/guide").glob("*.md"))]
SKIPPED = ("pytest", "mkdocs")  # the test command itself; the docs site (CI builds it: .ci/run)
PLACEHOLDER = re.compile(r"<[^<>]+>")  # <run>, <time>, <sweep>, <the sweep's folder>


@dataclass(frozen=True)
class Command:
    file: str
    line: int
    argv: tuple[str, ...]  # after ``python -m <program>`` (or ``pip``)
    program: str  # rlfw, rlfw.play, ..., or pip
    said: str | None = None  # a transcript's output line

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"

    def __str__(self) -> str:
        return f"{self.id}: {self.program} {shlex.join(self.argv)}"

    def filled(self, folder: Path) -> list[str]:
        """The arguments with each placeholder a folder under ``folder``."""
        return [PLACEHOLDER.sub(str(folder / "placeholder"), arg) for arg in self.argv]


def commands_in(file: str) -> list[Command]:
    text = (ROOT / file).read_text()
    found: list[Command] = []
    for fence in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        first = text.count("\n", 0, fence.start(2)) + 1
        lines = fence.group(2).splitlines()
        if fence.group(1) == "bash":
            found += bash_commands(file, first, lines)
        elif fence.group(1) == "":
            found += transcript_commands(file, first, lines)
    return found


def bash_commands(file: str, first: int, lines: list[str]) -> list[Command]:
    found, i = [], 0
    while i < len(lines):
        start, line = i, lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        i += 1
        words = shlex.split(PLACEHOLDER.sub("<placeholder>", line), comments=True)  # <the sweep's folder>
        chain: list[list[str]] = [[]]
        for word in words:
            if word == "&&":
                chain.append([])
            else:
                chain[-1].append(word)
        found += [c for part in chain if (c := command(file, first + start, part))]
    return found


def transcript_commands(file: str, first: int, lines: list[str]) -> list[Command]:
    found = []
    for i, line in enumerate(lines):
        if line.startswith("$ "):
            after = lines[i + 1] if i + 1 < len(lines) else ""
            said = after if after.startswith("rlfw:") else None
            c = command(file, first + i, shlex.split(line[2:], comments=True), said)
            found += [c] if c else []
    return found


def command(file: str, line: int, words: list[str], said: str | None = None) -> Command | None:
    if words[:1] == ["pip"]:
        return Command(file, line, tuple(words[1:]), "pip")
    if words[:2] != ["python", "-m"] or len(words) < 3 or words[2] in SKIPPED:
        assert not words or words[0] in ("python", "mkdocs", "pip"), f"{file}:{line}: {shlex.join(words)}"
        return None
    return Command(file, line, tuple(words[3:]), words[2], said)


COMMANDS = [c for file in DOCS for c in commands_in(file)]
_first: dict[tuple, Command] = {}
for _c in COMMANDS:
    _first.setdefault((_c.program, _c.argv, _c.said), _c)
DISTINCT = list(_first.values())  # each command once (the README and docs/index.md share several), where first shown
