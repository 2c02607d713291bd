"""MkDocs hooks: fill docs/reference/options.md with every registered option, read from the registry
as ``python -m rlfw.plugins`` reads it, so the page cannot drift from the code; and publish
benchmarks/results/ (the benchmarks' plots, raw output and run histories) with the site, so the results
page links to them by the same relative path on the site as in the repository."""

import re
from pathlib import Path

from mkdocs.structure.files import File

from rlfw.plugins.listing import contract, keys, source
from rlfw.registry import CONF_DIRS, KINDS, options

MARK = "<!-- rlfw-options -->"
ROOT = Path(__file__).resolve().parents[1]
RESULTS = "benchmarks/results"


def options_markdown() -> str:
    sections = []
    for kind in KINDS:
        rows = [
            f"| `{name}` | {source(kind, name)} | {keys(cls, kind).replace('|', '&#124;')} | {contract(cls, kind) or ''} |"
            for name, cls in sorted(options(kind).items())
        ]
        header = f"## {kind}\n\n`conf/{CONF_DIRS[kind]}/`, chosen with `{CONF_DIRS[kind]}=<name>`.\n\n"
        sections.append(header + "| option | from | keys | contract |\n|---|---|---|---|\n" + "\n".join(rows))
    return "\n\n".join(sections)


def on_files(files, config):
    """Every file under benchmarks/results/ joins the site, at benchmarks/results/ under its root."""
    for path in sorted((ROOT / RESULTS).rglob("*")):
        if path.is_file():
            files.append(File(str(path.relative_to(ROOT)), str(ROOT), config.site_dir, config.use_directory_urls))
    return files


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    """Links out of docs/ to benchmarks/results/ (right in the repository) point where on_files put it."""
    depth = page.file.src_uri.count("/")
    markdown = re.sub(rf"\]\((\.\./){{{depth + 1}}}{RESULTS}/", "](" + "../" * depth + RESULTS + "/", markdown)
    return markdown.replace(MARK, options_markdown()) if MARK in markdown else markdown
