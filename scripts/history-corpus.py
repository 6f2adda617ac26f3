#!/usr/bin/env python3
"""A history to import (`pbctl history import`): N entries in pbctl's exchange format (JSON Lines,
oldest first), deterministic for a seed. The mix is what clipboard histories hold: short plain text
most of the time (a median of a few dozen bytes, a long tail up to tens of KB; URLs, UUIDs, code, some
words outside ASCII, and about 1 in 1,000 a long text of 66 to 160 KB, longer than the search index
keeps), Markdown with its plain text, HTML with its plain text (what browsers offer), and small PNG
pictures. Every entry differs (an import would fold duplicates into one).

usage: history-corpus.py N [SEED] > history.jsonl
"""
import base64, json, random, struct, sys, uuid, zlib

n = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 40)
syllables = ["ka", "lo", "mi", "ne", "tor", "shi", "va", "ren", "qu", "zel", "pa", "dor", "fin", "gal", "hu", "jo", "wex", "yul", "bri", "cast"]
vocabulary = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(5000)]
# Words outside ASCII (accents, Greek, CJK, an emoji), in a few plain texts.
foreign = ["café", "naïve", "Grüße", "Ελληνικά", "日本語", "résumé", "Øresund", "emoji 🎉", "Straße", "Ιθάκη"]
apps = ["firefox", "org.gnome.Terminal", "code", "libreoffice-writer", "thunderbird", "kitty", "slack", None]


def words(count):
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def text_length():
    # Log-normal: median about 40 bytes, mean a few hundred, rarely tens of KB.
    return max(1, min(60000, int(rng.lognormvariate(3.7, 1.5))))


def plain(i):
    kind = rng.random()
    if kind < 0.15:
        return "https://example.%s/%s/%d?q=%s" % (rng.choice(["org", "com", "net"]), rng.choice(vocabulary), i, rng.choice(vocabulary))
    if kind < 0.19:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if kind < 0.29:
        return "def %s_%d(%s):\n    return %s\n" % (rng.choice(vocabulary), i, rng.choice(vocabulary), words(rng.randint(2, 8)))
    if kind < 0.292:
        # A long text: more than the search index keeps of it (64 KiB).
        length = rng.randint(66_000, 160_000)
        return "%s %d" % (words(length // 5)[:length], i)
    length = text_length()
    out = words(max(1, length // 6))[:length]
    if kind > 0.95:
        out = "%s %s" % (rng.choice(foreign), out)
    return "%s %d" % (out, i)


def png(i):
    w, h = rng.choice([(16, 16), (32, 24), (48, 48), (64, 40)])
    r, g, b = rng.randrange(256), rng.randrange(256), rng.randrange(256)
    rows = bytearray()
    for y in range(h):
        rows.append(0)
        for x in range(w):
            rows += bytes(((r + x * 3) & 255, (g + y * 5) & 255, (b + i) & 255, 255))
    # The entry's number in the first pixels keeps every picture distinct.
    struct.pack_into(">I", rows, 1, i)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b"")


def b64(data):
    return base64.b64encode(data if isinstance(data, bytes) else data.encode()).decode()


time = 1_420_070_400  # 2015-01-01
out = sys.stdout
for i in range(n):
    time += rng.randint(1, 600)
    kind = rng.random()
    if kind < 0.55:
        reps = {"text/plain;charset=utf-8": b64(plain(i))}
    elif kind < 0.70:
        md = "# %s %d\n\n%s *%s* `%s`\n\n- %s\n- %s\n" % (words(3), i, words(rng.randint(5, 40)), words(2), rng.choice(vocabulary), words(4), words(5))
        reps = {"text/markdown": b64(md), "text/plain;charset=utf-8": b64(md)}
    elif kind < 0.90:
        body = words(rng.randint(5, 120))
        html = '<meta charset="utf-8"><p>%s <b>%s</b> <a href="https://example.org/%d">%s</a></p>' % (body, words(2), i, words(2))
        reps = {"text/html": b64(html), "text/plain;charset=utf-8": b64("%s %s %s" % (body, words(2), i))}
    else:
        reps = {"image/png": b64(png(i))}
    line = {"time": "%04d-%02d-%02dT%02d:%02d:%02dZ" % (0, 0, 0, 0, 0, 0)}
    import datetime
    line["time"] = datetime.datetime.fromtimestamp(time, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    app = rng.choice(apps)
    if app:
        line["source"] = app
    line["representations"] = reps
    out.write(json.dumps(line, separators=(",", ":")) + "\n")
