#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into Tests/Fuzz/corpus/<target>/ (run by hand when the
sources of seeds change; the output is committed). Seeds come from the spec examples, the test fixtures,
the shared RTF samples and small hand-made inputs for the binary formats. Deterministic."""
import io
import json
import os
import re
import struct
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests", "Fuzz", "corpus")
SPECS = os.path.join(ROOT, "Tests", "SpecConformanceTests", "Specs")
FIXTURES = os.path.join(ROOT, "Tests", "RepresentationsTests", "Fixtures", "RichText")
SAMPLES = os.path.join(ROOT, "..", "shared", "reference", "samples")
IMAGES = os.path.join(ROOT, "Tests", "ImagesTests", "Fixtures")


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def spec_examples(path):
    """(markdown, html) pairs of a CommonMark-style spec file."""
    text = open(path, encoding="utf-8").read()
    fence = "`" * 32
    pattern = re.compile(r"^" + fence + r" example[^\n]*\n(.*?)^\.\n(.*?)^" + fence + r"$", re.M | re.S)
    for m in pattern.finditer(text):
        yield m.group(1).replace("→", "\t"), m.group(2).replace("→", "\t")


def markdown_and_html():
    examples = []
    for name in ("commonmark-0.31.2-spec.txt", "gfm-0.29-extensions.txt"):
        examples += list(spec_examples(os.path.join(SPECS, name)))
    # Every fourth spec example (enough to reach every construct), plus every GFM extension example.
    chosen = examples[::4] + examples[-40:]
    for i, (md, html) in enumerate(chosen):
        write("markdown", "spec-%03d.md" % i, md)
        write("html", "spec-%03d.html" % i, html)
    for name in sorted(os.listdir(FIXTURES)):
        data = open(os.path.join(FIXTURES, name), "rb").read()
        if name.endswith(".md"):
            write("markdown", name, data)
        elif name.endswith(".html"):
            write("html", name, data)
    write("html", "clipboard-fragment.html",
          "<html><body>\n<!--StartFragment--><meta charset='utf-8'><span style=\"font-weight:700\">b</span>"
          "<ol type=\"a\" start=\"3\"><li>x<ul><li>y</li></ul></li></ol><table><caption>c</caption><tr><td colspan=2>t</td></tr></table>"
          "<pre><code class=\"language-swift\">let x = 1</code></pre><details><summary>s</summary>d</details>"
          "<!--EndFragment-->\n</body></html>")


def rtf():
    for folder in (FIXTURES, SAMPLES):
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".rtf"):
                write("rtf", name, open(os.path.join(folder, name), "rb").read())
    body = (r"{\pard\ql \b Title\b0\par}{\pard Some {\i em} \'e9\'e8 {\field{\*\fldinst{HYPERLINK ""https://x""}}"
            r"{\fldrslt{\ul link}}} \u8212- \u55357?\u56832?\par}"
            r"{\*\listtable{\list\listtemplateid1{\listlevel\levelnfc4\levelstartat3{\leveltext\'02\'00.;}{\levelnumbers\'01;}}\listid1}}"
            r"{\listtext a.\tab}\ls1\ilvl0 item\par"
            r"\trowd\cellx1000\cellx2000 a\cell b\cell\row"
            r"{\pict\pngblip 89504e470d0a1a0a}\par")
    pages = [1250, 1251, 1252, 1253, 1254, 1255, 1256, 1257, 1258, 874, 932, 936, 949, 950, 437, 850, 10000]
    for cp in pages:
        write("rtf", "cp%d.rtf" % cp, ("{\\rtf1\\ansi\\ansicpg%d\\deff0{\\fonttbl{\\f0\\fcharset0 Times;}}" % cp) + body + "\\'a4\\'a1\\'b0\\'c3}")
    write("rtf", "mac.rtf", r"{\rtf1\mac\deff0 caf\'8e \'d2q\'d3\par}")
    write("rtf", "pn-list.rtf", r"{\rtf1\ansi{\*\pn\pnlvlbody\pnstart1\pndec{\pntxta.}}\ls3 A\par Numbered\par List\par\pard"
                                 r"{\pntext\'b7\tab}{\*\pn\pnlvlblt{\pntxtb\'b7}}B\par}")
    write("rtf", "footnote.rtf", r"{\rtf1 Text{\super\chftn}{\footnote\pard{\super\chftn} Note.\par} more\par}")
    write("rtf", "nested-table.rtf", r"{\rtf1\trowd\cellx3000 \pard\intbl a\nestcell{\*\nesttableprops\trowd\cellx1000\nestrow}\cell\row}")
    write("rtf", "bin.rtf", "{\\rtf1 a\\bin4 \x00\x01{}b\\bin-3 c\\bin99999999999 d}")


def textbundle():
    def pack(files, name, method=zipfile.ZIP_DEFLATED):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as z:
            for path, data in files:
                info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = method
                z.writestr(info, data)
        write("textbundle", name, buf.getvalue())
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
    info = json.dumps({"version": 2, "type": "net.daringfireball.markdown", "transient": False,
                       "creatorIdentifier": "com.example"})
    pack([("trip.textbundle/info.json", info), ("trip.textbundle/text.md", "# Trip\n\n![p](assets/p.png)\n"),
          ("trip.textbundle/assets/p.png", png)], "textpack.zip")
    pack([("info.json", info), ("text.markdown", "x"), ("assets/", "")], "flat-stored.zip", zipfile.ZIP_STORED)
    pack([("info.json", "{\"version\": 1}"), ("text.txt", "plain")], "v1.zip")


def item_archive():
    def archive(records, blobs):
        header = json.dumps(records).encode()
        return b"PBA1" + struct.pack("<I", len(header)) + header + b"".join(blobs)
    meta = {"created": "2026-01-01T00:00:00Z", "extra": {}, "flags": 0}
    write("item-archive", "text.pba", archive(
        [{"metadata": meta, "representations": [{"type": "public.utf8-plain-text", "size": 5}]}], [b"hello"]))
    write("item-archive", "markdown.pba", archive(
        [{"metadata": dict(meta, flags=2, sourceApplication="pbctl"), "representations": [
            {"type": "net.daringfireball.markdown", "size": 4},
            {"type": "public.html", "derivedFrom": "net.daringfireball.markdown"},
            {"type": "public.utf8-plain-text", "size": 4, "sameBytesAs": "net.daringfireball.markdown"}]}], [b"*x*\n"]))
    write("item-archive", "two-items.pba", archive(
        [{"metadata": meta, "representations": [{"type": "public.png", "size": 8}]},
         {"metadata": meta, "representations": [{"type": "public.rtf", "size": 6}]}], [b"\x89PNG\r\n\x1a\n", b"{\\rtf}"]))


def store_info():
    rep = lambda t, **k: dict(type=t, **k)
    meta = {"created": "2026-11-25T02:10:51Z", "extra": {}, "flags": 0, "sourceApplication": "pbctl", "sourcePath": "/tmp/a.md"}
    infos = {
        "markdown.json": {"changeCount": 1, "format": 1, "items": [{"metadata": meta, "representations": [
            rep("net.daringfireball.markdown", file="c1-0-0.data", size=17),
            rep("public.html", derivedFrom="net.daringfireball.markdown"),
            rep("public.utf8-plain-text", derivedFrom="net.daringfireball.markdown", file="c1-0-3.data", size=17)]}]},
        "held.json": {"changeCount": 7, "format": 1, "holder": "hold.sock", "items": [{"metadata": dict(meta, flags=1),
            "representations": [rep("public.utf8-plain-text", held=True)]}]},
        "empty.json": {"changeCount": 3, "format": 1, "items": []},
        "huge-numbers.json": {"changeCount": 9223372036854775807, "format": 1, "items": [{"metadata": meta,
            "representations": [rep("public.data", file="c9223372036854775807-0-0.data", size=9223372036854775807)]}]},
    }
    for name, info in infos.items():
        write("store-info", name, json.dumps(info, indent=2))


def type_declarations():
    write("type-declarations", "recipe.plist", """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array><dict>
<key>UTTypeIdentifier</key><string>com.example.recipe</string>
<key>UTTypeConformsTo</key><array><string>public.json</string></array>
<key>UTTypeDescription</key><string>Recipe</string>
<key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>recipe</string></array>
<key>public.mime-type</key><string>application/x-recipe</string></dict></dict></array>
<key>UTImportedTypeDeclarations</key><array><dict><key>UTTypeIdentifier</key><string>org.example.other</string>
<key>UTTypeConformsTo</key><string>public.text</string></dict></array></dict></plist>
""")
    write("type-declarations", "bad.plist", """<?xml version="1.0"?><plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array>
<dict><key>UTTypeConformsTo</key><string>public.data</string></dict>
<dict><key>UTTypeIdentifier</key><string>com.example.bad</string><key>UTTypeConformsTo</key><integer>3</integer></dict>
</array></dict></plist>""")
    write("type-declarations", "binary.plist", b"bplist00\xd1\x01\x02_\x10\x1aUTExportedTypeDeclarations\xa0\x08\x0b(\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00)")


def sniffer():
    seeds = {
        "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF", "gif": b"GIF89a\x01\x00",
        "pdf": b"%PDF-1.7\n", "zip": b"PK\x03\x04\x14\x00", "rtf": b"{\\rtf1\\ansi x}", "html": b"<!DOCTYPE html><p>x",
        "text": "héllo wörld\n".encode(), "bad-utf8": b"abc\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80", "webp": b"RIFF\x00\x00\x00\x00WEBPVP8 ",
        "svg": b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>", "utf16": b"\xff\xfeh\x00i\x00",
    }
    for name, data in seeds.items():
        write("sniffer", name, data)


def compound_text():
    esc = lambda s: b"\x1b" + s.encode()
    write("compound-text", "gtk.ct", b"caf\xe9 " + esc("-F") + bytes([0xD9, 0xEC, 0xDD, 0xE3, 0xE1, 0x20]) + esc("-b") + b"\xa4 "
          + esc("$(B") + b"F|K\\8l" + esc("(B") + b" ok\n")
    write("compound-text", "latin2.ct", esc("-B") + b"\xa3\xb9" + esc("-L") + b"\xb4\xef")
    write("compound-text", "extended.ct", esc("%G") + "日本".encode() + esc("%@") + b"x" + esc("%/1") + b"\x80\x89koi8-r\x02\xc1")
    write("compound-text", "direction.ct", b"\x9b1]abc\x9b]" + esc("$)A") + b"\xb0\xa1")


def x11_protocol():
    for kind in range(4):
        data = bytes([kind]) + bytes((i * 37 + kind * 11) & 0xFF for i in range(200))
        write("x11-protocol", "walk-%d.bin" % kind, data)
    write("x11-protocol", "incr.bin", bytes([0, 0, 1, 0, 6, 0, 0, 0, 1, 4, 32, 4, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 8, 5, 104, 101, 108, 108, 111, 0, 0]))


def wayland_protocol():
    """Wire messages (object index, opcode, arguments): the fuzzer maps each object field onto the
    objects the client knows (display, registry, seat, manager, device, sources, offers)."""
    import struct

    def message(obj, opcode, body=b""):
        return struct.pack("<II", obj, ((8 + len(body)) << 16) | opcode) + body

    def string(text):
        raw = text.encode() + b"\0"
        return struct.pack("<I", len(raw)) + raw + b"\0" * (-len(raw) % 4)

    offer = 0xFF000000
    # A data_offer, its MIME types, the selection and the primary selection, then a clear.
    session = message(4, 0, struct.pack("<I", offer))
    for mime in ["text/plain;charset=utf-8", "text/html", "x-kde-passwordManagerHint"]:
        session += message(5, 0, string(mime))
    session += message(4, 1, struct.pack("<I", offer)) + message(4, 3, struct.pack("<I", offer))
    session += message(4, 1, struct.pack("<I", 0)) + message(4, 2)
    write("wayland-protocol", "offer-and-selection.bin", session)
    # A source asked to send a type (its descriptor fake), then cancelled; a display error.
    write("wayland-protocol", "send-cancel-error.bin",
          message(5, 0, string("text/plain")) + message(5, 1) + message(0, 0, struct.pack("<II", 1, 3) + string("boom")))
    # Registry events: a global removed, another added.
    write("wayland-protocol", "registry.bin",
          message(1, 1, struct.pack("<I", 2)) + message(1, 0, struct.pack("<I", 9) + string("wl_seat") + struct.pack("<I", 1)))


def regex():
    """Pattern, NUL, text: the patterns that stall a backtracking engine, every construct, refused patterns."""
    seeds = {
        "nested-star.bin": b"(a*)*b\0" + b"a" * 1000,
        "alternation-star.bin": b"(a|a)*b\0" + b"a" * 1000,
        "plus-plus.bin": b"(x+x+)+y\0" + b"x" * 1000,
        "per-line.bin": b"^n 1050$\0x\nn 1050\r\n",
        "classes.bin": "[[:alpha:]][^[:digit:]]\\w+\\b[[:punct:][:space:]]\\S\0Café 42 naïve!".encode(),
        "counts.bin": b"a{2,5}(b|c){,3}d{3,}e{2}?\0aaabccddd",
        "brackets-words.bin": b"\\<word\\>|[]a-]+|(?:x|y)?z|[^]a]\\B\0 word ]-a z",
        # An odd first byte: case-insensitive.
        "case.bin": "Sigma|[A-Z]é\0ΣΙΓΜΑ σ ς É".encode(),
        "refused.bin": b"(a)\\1|[z-a]|x{3,2}\0aa",
        "deep.bin": b"(" * 1200 + b"a" + b")" * 1200 + b"\0a",
        "too-large.bin": b"(a|b|c|d){1000}(e|f|g|h){1000}\0abcdefgh",
        "invalid-utf8.bin": "a\ufffdb|.\\n$\0".encode() + b"a\xffb\xc3\n",
        "no-separator.bin": b"abc|^$|\\d+",
    }
    for name, data in seeds.items():
        write("regex", name, data)


def images():
    """The image fixtures (scripts/make-image-fixtures.py), each in its family's corpus, bombs included."""
    families = {".png": "image-png", ".jpg": "image-jpeg", ".gif": "image-gif", ".bmp": "image-bmp", ".tif": "image-tiff", ".webp": "image-webp"}
    for folder in (IMAGES, os.path.join(IMAGES, "bombs")):
        for name in sorted(os.listdir(folder)):
            target = families.get(os.path.splitext(name)[1])
            if target:
                write(target, name, open(os.path.join(folder, name), "rb").read())


def history_import():
    # Lines of `pbctl history export`'s format, good and refused.
    write("history-import", "export-lines.jsonl",
          '{"time":"2026-01-02T03:04:05Z","source":"firefox","pinned":true,"representations":'
          '{"text/plain;charset=utf-8":"aGVsbG8=","text/html":"PHA+aGk8L3A+"}}\n')
    write("history-import", "times.jsonl",
          '{"time":"2026-01-02T03:04:05.123456+05:30","representations":{"public.utf8-plain-text":"","image/png":"iVBORw0KGgo="}}\n'
          '{"time":"1969-12-31 23:59:59.999Z","representations":{"net.daringfireball.markdown":"IyB0aXRsZQo="}}\n')
    write("history-import", "refused.jsonl",
          '{"time":"2026-01-01T00:00:00Z","representations":{}}\n'
          '{"time":"yesterday","representations":{"a":"aGk="}}\n'
          '{"time":"2026-01-01T00:00:00Z","representations":{"a":"aGk=","a":"aGk="}}\n'
          '{"time":"2026-01-01T00:00:00Z","source":null,"other":[1,2],"representations":{"bad\\u000atype":"!!"}}\n'
          '[\n')


markdown_and_html()
history_import()
rtf()
textbundle()
item_archive()
store_info()
type_declarations()
sniffer()
compound_text()
x11_protocol()
wayland_protocol()
regex()
images()
for target in sorted(os.listdir(CORPUS)):
    print("%-18s %4d seeds" % (target, len(os.listdir(os.path.join(CORPUS, target)))), file=sys.stderr)
