#!/usr/bin/env python3
"""Markdown inputs of a given shape and size, for the memory and speed tables of `make bench`
(scripts/bench.sh, section markdown). Usage: gen-markdown-inputs.py SHAPE BYTES > FILE

Shapes that documents have (memory must stay bounded by the input whatever the shape):
  emphasis   one line of `word *em* ` repeated (the issue's example)
  links      inline, reference and angle-bracket links, paragraphs of eight lines
  nested     lists in quotes in lists in quotes, four levels, all in one top-level block quote
  prose      paragraphs of five 72-character lines
and the adversarial shapes of scripts/pathological-pairs.py (their names, spaces as dashes)."""
import sys


def repeat(unit, size, prefix=b"", suffix=b""):
    unit = unit.encode() if isinstance(unit, str) else unit
    prefix = prefix.encode() if isinstance(prefix, str) else prefix
    suffix = suffix.encode() if isinstance(suffix, str) else suffix
    return prefix + unit * max(1, (size - len(prefix) - len(suffix)) // len(unit)) + suffix


def units(make, size, tail=b""):
    out, n, i = [], 0, 0
    while n < size:
        u = make(i).encode()
        out.append(u)
        n += len(u)
        i += 1
    return b"".join(out) + tail


SHAPES = {
    "emphasis": lambda n: repeat("word *em* ", n),
    "links": lambda n: units(lambda i: '[link %d](https://example.com/docs/page-%d "title") and [ref][r] <https://example.org/%d>%s'
                             % (i, i, i, "\n\n" if i % 8 == 7 else "\n"), n, b"\n[r]: https://example.com/reference\n"),
    "nested": lambda n: units(lambda i: "> - item *one* %d\n>   - nested **two**\n>     > quoted `three`\n>     > - deeper [four](u)\n" % i, n),
    "prose": lambda n: units(lambda i: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.\n" + ("\n" if i % 5 == 4 else ""), n),
    # scripts/pathological-pairs.py's Markdown shapes
    "nested-block-quotes": lambda n: repeat(">", n, suffix=" x\n"),
    "nested-quotes-one-paragraph-each": lambda n: repeat("> x\n>", n),
    "nested-lists-on-one-line": lambda n: repeat("- ", n, suffix="x\n"),
    "quote-list-mix": lambda n: repeat("> - ", n, suffix="x\n"),
    "long-emphasis-runs": lambda n: repeat("*", n // 2) + b"a" + repeat("*", n // 2),
    "unmatched-openers": lambda n: repeat("*a _b ", n),
    "nested-brackets": lambda n: repeat("[", n // 2) + b"a" + repeat("]", n // 2),
    "link-openers-and-closers": lambda n: repeat("[a](b ", n),
    "tall-table": lambda n: repeat("|x|y|z|\n", n, prefix="|a|b|c|\n|-|-|-|\n"),
    "many-footnotes": lambda n: repeat("x[^a]\n\n[^a]: y\n\n", n),
    "html-block-run": lambda n: repeat("<div>\n", n),
    "entities": lambda n: repeat("&amp;&#x1F600;&nbsp;", n),
    "empty-list-items": lambda n: repeat("-\n", n),
    "short-list-items": lambda n: repeat("- a\n", n),
    # cmark's test/pathological_tests.py, and shapes that keep inline constructs waiting: an opener or
    # an open bracket that may still close around everything after it (each one line, no final newline)
    "nested-strong-emphasis": lambda n: repeat("*a **a ", n // 2) + b"b" + repeat(" a** a*", n // 2),
    "emphasis-closers-without-openers": lambda n: repeat("a_ ", n),
    "emphasis-openers-without-closers": lambda n: repeat("_a ", n),
    "link-closers-without-openers": lambda n: repeat("a]", n),
    "link-openers-without-closers": lambda n: repeat("[a", n),
    "mismatched-openers-and-closers": lambda n: repeat("*a_ ", n),
    "link-openers-and-emphasis-closers": lambda n: repeat("[ a_", n),
    "image-link-pattern": lambda n: repeat("![[]()", n),
    "emphasis-without-spaces": lambda n: repeat("*a*", n),
    "strong-without-spaces": lambda n: repeat("**a**", n),
    "open-brackets": lambda n: repeat("[", n),
    "brackets-and-emphasis": lambda n: repeat("[*", n),
    "emphasis-in-one-link": lambda n: repeat("*a* ", n, prefix="[", suffix="](u)"),
    "emphasis-in-one-link-after-an-opener": lambda n: repeat("*a", n, prefix="*[", suffix="](u)"),
    "links-after-an-opener": lambda n: repeat("[a](b)", n, prefix="*"),
    "reference-links-after-an-opener": lambda n: repeat("[a] ", n, prefix="[a]: /u\n\n*"),
}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in SHAPES:
        sys.exit("usage: gen-markdown-inputs.py SHAPE BYTES\nshapes: " + " ".join(SHAPES))
    sys.stdout.buffer.write(SHAPES[sys.argv[1]](int(sys.argv[2])))
