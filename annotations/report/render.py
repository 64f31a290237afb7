"""The report as one self-contained HTML file (inline SVG and CSS, no external assets, print CSS so it reads on
paper), the same content as Markdown, and the LaTeX methods paragraph."""

from __future__ import annotations

from html import escape

from benchlab.annotations.report.model import Figure, Grid, Report

CSS = """
body{font-family:Georgia,serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.2rem;border-bottom:1px solid #999;margin-top:2rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}caption{text-align:left;font-weight:bold;padding:.2rem 0}
td,th{border:1px solid #bbb;padding:.2rem .45rem;vertical-align:top;text-align:left}
th{background:#eee}pre{white-space:pre-wrap;font-size:.8rem;background:#f6f6f6;padding:.5rem}
td.hash{font-family:monospace;font-size:.7rem;word-break:break-all}figure{margin:.5rem 0}
nav a{margin-right:.8rem}
@media print{body{max-width:none;margin:0;font-size:10pt}nav{display:none}h2{break-after:avoid}
table,figure{break-inside:avoid}th{background:none}a{color:#000;text-decoration:none}}
"""


def to_html(report: Report) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(report.title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(report.title)}</h1><p>{escape(report.subtitle)}</p><nav>"]
    out += [f'<a href="#{s.anchor}">{escape(s.title)}</a>' for s in report.sections]
    out.append("</nav>")
    for section in report.sections:
        out.append(f'<section id="{section.anchor}"><h2>{escape(section.title)}</h2>')
        for block in section.blocks:
            if isinstance(block, Grid):
                out.append(f"<table><caption>{escape(block.caption)}</caption><tr>"
                           + "".join(f"<th>{escape(c)}</th>" for c in block.columns) + "</tr>")
                for row in block.rows:
                    out.append("<tr>" + "".join(
                        f'<td class="hash">{escape(v)}</td>' if len(v) == 64 and v.isalnum() else
                        f"<td>{escape(v)}</td>" for v in row) + "</tr>")
                out.append("</table>")
            elif isinstance(block, Figure):
                out.append(f"<figure>{block.svg}<figcaption>{escape(block.caption)}</figcaption></figure>")
            elif "\n" in block:
                out.append(f"<pre>{escape(block)}</pre>")
            else:
                out.append(f"<p>{escape(block)}</p>")
        out.append("</section>")
    out.append(f'<section id="methods"><h2>Methods paragraph (LaTeX)</h2><pre>{escape(report.methods_latex)}'
               "</pre></section></body></html>")
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Report) -> str:
    out = [f"# {report.title}", "", report.subtitle, ""]
    for section in report.sections:
        out += [f"## {section.title}", ""]
        for block in section.blocks:
            if isinstance(block, Grid):
                out += [f"**{block.caption}**", "", "| " + " | ".join(map(_md_cell, block.columns)) + " |",
                        "|" + "---|" * len(block.columns)]
                out += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in block.rows]
            elif isinstance(block, Figure):
                out.append(f"*Figure: {block.caption}.* {block.alt}")
            elif "\n" in block:
                out += ["```", block, "```"]
            else:
                out.append(block)
            out.append("")
    out += ["## Methods paragraph (LaTeX)", "", "```latex", report.methods_latex.rstrip("\n"), "```", ""]
    return "\n".join(out)
