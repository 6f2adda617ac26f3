#!/usr/bin/env python3
"""The pathological suite for every reader -> writer pair, on a pbctl binary (the release build, from
scripts/release-smoke.sh): adversarial documents of about 1 MB for each reader (Markdown, CommonMark,
GFM, HTML, RTF: deep nesting, long delimiter runs, wide tables, deep lists) through every writer
(HTML, RTF, Markdown, CommonMark, text). Each conversion must succeed or fail with a documented code,
and take under LIMIT seconds of CPU time (default 1; CPU time, not wall time, so a loaded machine does
not fail it). Prints one line per case with the slowest writer. Usage: pathological-pairs.py PBCTL [LIMIT]"""
import os
import resource
import subprocess
import sys
import time

MB = 1 << 20


def fill(unit, size=MB, prefix="", suffix=""):
    unit = unit.encode() if isinstance(unit, str) else unit
    return prefix.encode() + unit * max(1, (size - len(prefix) - len(suffix)) // len(unit)) + suffix.encode()


MARKDOWN = {
    "nested block quotes": fill(">", suffix=" x\n"),
    "nested quotes, one paragraph each": fill("> x\n>"),
    "nested lists on one line": fill("- ", suffix="x\n"),
    "nested ordered lists": fill("1. ", suffix="x\n"),
    "indented list staircase": b"".join(b"  " * i + b"- x\n" for i in range(1000)),
    "quote list mix": fill("> - ", suffix="x\n"),
    "long emphasis runs": fill("*", MB // 2) + b"a" + fill("*", MB // 2),
    "unmatched openers": fill("*a _b "),
    "nested brackets": fill("[", MB // 2) + b"a" + fill("]", MB // 2),
    "link openers and closers": fill("[a](b "),
    "wide table": b"|" + fill("a|", MB // 2) + b"\n|" + fill("-|", MB // 2) + b"\n",
    "tall table": b"|a|b|c|\n|-|-|-|\n" + fill("|x|y|z|\n"),
    "many footnotes": fill("x[^a]\n\n[^a]: y\n\n"),
    "code fence backticks": fill("`", MB // 2) + b"a",
    "html block run": fill("<div>\n"),
    "entities": fill("&amp;&#x1F600;&nbsp;"),
    "nested strong emphasis": fill("*a **a ", MB // 2) + b"b" + fill(" a** a*", MB // 2),
    "emphasis without spaces": fill("*a*"),
    "brackets and emphasis": fill("[*"),
    "image link pattern": fill("![[]()"),
    "emphasis in one link after an opener": fill("*a", prefix="*[", suffix="](u)"),
    "reference links after an opener": fill("[a] ", prefix="[a]: /u\n\n*"),
}
HTML = {
    "nested divs": fill("<div>", suffix="x"),
    "nested block quotes": fill("<blockquote>", suffix="x"),
    "nested lists": fill("<ul><li>", suffix="x"),
    "nested ordered lists": fill("<ol start=9 type=i><li>", suffix="x"),
    "nested tables": fill("<table><tr><td>", suffix="x"),
    "wide table": b"<table><tr>" + fill("<td>x</td>") + b"</tr></table>",
    "tall table": b"<table>" + fill("<tr><td>a</td><td colspan=2>b</td></tr>") + b"</table>",
    "unclosed inline tags": fill("<b><i><s>"),
    "styled spans": fill("<span style=\"font-weight:bold;font-style:italic\">", suffix="x"),
    "unclosed comment": b"<p>a<!--" + fill("a"),
    "many attributes": b"<p " + fill("a=b ") + b">x</p>",
    "misnested formatting": fill("<b><i>x</b></i>"),
    "entities": fill("&amp;&#128512;&nbsp;&bogus"),
    "nested details": fill("<details><summary>s</summary>", suffix="x"),
    "pre with breaks": b"<pre>" + fill("a\n<br>") + b"</pre>",
}
RTF = {
    "deep groups": b"{\\rtf1 " + fill("{", suffix="x"),
    "deep groups closed": b"{\\rtf1 " + fill("{x", MB // 2) + fill("}", MB // 2),
    "many paragraphs": b"{\\rtf1 " + fill("a\\par ") + b"}",
    "table rows": b"{\\rtf1 " + fill("\\trowd\\cellx100\\cellx200 a\\cell b\\cell\\row ") + b"}",
    "nested table cells": b"{\\rtf1 " + fill("\\pard\\intbl\\itap2 a\\nestcell{\\*\\nesttableprops\\trowd\\cellx50\\nestrow}") + b"}",
    "list paragraphs": b"{\\rtf1 " + fill("{\\listtext 1.\\tab}\\ls1\\ilvl8 a\\par ") + b"}",
    "old-style list paragraphs": b"{\\rtf1 {\\*\\pn\\pnlvlbody\\pndec}" + fill("a\\par ") + b"}",
    "nested fields": b"{\\rtf1 " + fill("{\\field{\\*\\fldinst HYPERLINK \"x\"}{\\fldrslt ", suffix="x"),
    "unicode escapes": b"{\\rtf1 " + fill("\\u8212?\\u55357?\\u56832?") + b"}",
    "hex bytes cp932": b"{\\rtf1\\ansicpg932 " + fill("\\'82\\'a0") + b"}",
    "long control words": b"{\\rtf1 " + fill("\\" + "a" * 40 + " ") + b"}",
    "footnotes": b"{\\rtf1 " + fill("x{\\footnote y}") + b"}",
    "pictures": b"{\\rtf1 " + fill("{\\pict\\pngblip 89504e47}") + b"}",
    "character formatting": b"{\\rtf1 " + fill("\\b\\i\\ul\\strike x\\b0\\i0 ") + b"}",
}
READERS = [("markdown", MARKDOWN), ("commonmark", MARKDOWN), ("html", HTML), ("rtf", RTF)]
WRITERS = ["html", "rtf", "markdown", "commonmark", "text"]
DOCUMENTED = {0, 1, 64, 65, 69, 74}


def cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main():
    pbctl = sys.argv[1]
    limit = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    failures = 0
    worst = 0.0
    for reader, cases in READERS:
        for name, data in cases.items():
            slowest = (0.0, "")
            for writer in WRITERS:
                before = cpu()
                start = time.monotonic()
                try:
                    p = subprocess.run([pbctl, "convert", "--from", reader, "--to", writer], input=data,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
                    code = p.returncode
                except subprocess.TimeoutExpired:
                    code = "timeout"
                spent = cpu() - before
                wall = time.monotonic() - start
                if spent > slowest[0]:
                    slowest = (spent, writer)
                if code not in DOCUMENTED or spent > limit:
                    failures += 1
                    print("FAIL %s -> %s, %s: exit %s, %.2f s CPU, %.2f s wall" % (reader, writer, name, code, spent, wall))
            worst = max(worst, slowest[0])
            print("%-10s %-34s %7d bytes  slowest: %-10s %.3f s CPU" % (reader, name, len(data), slowest[1], slowest[0]))
    print("pathological pairs: %d cases x %d writers, slowest %.3f s CPU, %d over %.1f s" % (
        sum(len(c) for _, c in READERS), len(WRITERS), worst, failures, limit))
    return 1 if failures else 0


sys.exit(main())
