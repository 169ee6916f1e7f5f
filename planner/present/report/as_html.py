"""The report as one HTML page: every piece of text escaped, plots embedded as base64 PNG."""

from __future__ import annotations

import base64
import html

from planner.errors import PlannerError
from planner.present.report.blocks import Block, Bullets, Heading, Paragraph, Section, Table, png

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 75rem;
       padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ddd; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin-top: 1.4rem; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.85rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } tr:nth-child(even) td { background: #fafafa; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85rem; color: #555; } nav a { margin-right: 0.8rem; }
"""


def _html_block(block: Block) -> str:
    e = html.escape
    if isinstance(block, Paragraph):
        return f"<p>{e(block.text)}</p>"
    if isinstance(block, Heading):
        return f"<h3>{e(block.text)}</h3>"
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{e(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, Table):
        head = "".join(f"<th>{e(h)}</th>" for h in block.headers)
        body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    try:
        data = base64.b64encode(png(block)).decode("ascii")
    except PlannerError as error:
        return f"<p>Plot {e(block.name)} left out: {e(str(error))}</p>"
    return (
        f'<figure id="plot-{e(block.name)}"><img src="data:image/png;base64,{data}" alt="{e(block.caption)}">'
        f"<figcaption>{e(block.caption)}</figcaption></figure>"
    )


def html_document(title: str, sections: list[Section], generated: str) -> str:
    e = html.escape
    nav = "".join(f'<a href="#{e(s.anchor)}">{e(s.title)}</a>' for s in sections)
    body = "".join(
        f'<section id="{e(s.anchor)}"><h2>{e(s.title)}</h2>' + "".join(_html_block(b) for b in s.blocks) + "</section>"
        for s in sections
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{e(title)}</h1>\n<p>{e(generated)}</p>\n<nav>{nav}</nav>\n{body}\n</main>\n</body>\n</html>\n"
    )
