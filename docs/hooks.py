"""MkDocs hook: fills docs/reference/options.md with every registered option, read from the registry
as ``python -m rlfw.plugins`` reads it, so the page cannot drift from the code."""

from rlfw.plugins.listing import contract, keys, source
from rlfw.registry import CONF_DIRS, KINDS, options

MARK = "<!-- rlfw-options -->"


def options_markdown() -> str:
    sections = []
    for kind in KINDS:
        rows = [
            f"| `{name}` | {source(kind, name)} | {keys(cls, kind).replace('|', '&#124;')} | {contract(cls) or ''} |"
            for name, cls in sorted(options(kind).items())
        ]
        header = f"## {kind}\n\n`conf/{CONF_DIRS[kind]}/`, chosen with `{CONF_DIRS[kind]}=<name>`.\n\n"
        sections.append(header + "| option | from | keys | contract |\n|---|---|---|---|\n" + "\n".join(rows))
    return "\n\n".join(sections)


def on_page_markdown(markdown: str, page, **kwargs) -> str:
    return markdown.replace(MARK, options_markdown()) if MARK in markdown else markdown
