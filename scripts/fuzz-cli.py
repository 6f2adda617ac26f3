#!/usr/bin/env python3
"""The fuzz targets' inputs, mutated, through the pbctl binary itself (the release build by default):
`convert` for every reader/writer pair and `copy` + `paste --as` through a private store. Every run must
end within the time bound with one of the documented exit codes (0, 1, 64, 65, 69, 74) and, when it
fails, one line on standard error. Findings (a signal, a hang, an undocumented code, a silent failure)
are written to Tests/Fuzz/regressions/cli-<reader>/ for the unit-level replay of the reader and
reported. Usage: fuzz-cli.py PBCTL [SECONDS] (default 60)."""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests", "Fuzz", "corpus")
REGRESSIONS = os.path.join(ROOT, "Tests", "Fuzz", "regressions")
DOCUMENTED = {0, 1, 64, 65, 69, 74}
BOUND = 10.0
READERS = {"markdown": "markdown", "commonmark": "markdown", "html": "html", "rtf": "rtf", "text": "markdown"}
WRITERS = ["html", "rtf", "markdown", "commonmark", "text"]
TOKENS = [b"{", b"}", b"\\", b"\\par ", b"\\u8212?", b"\\'e9", b"\\bin5 ", b"{\\field{\\*\\fldinst HYPERLINK \xa0 \"x\"}}",
          b"\\ansicpg932", b"\\trowd\\cellx100 ", b"\\cell\\row ", b"{\\pict\\pngblip ", b"<", b">", b"</", b"<table>",
          b"<td colspan=9>", b"<ol start=99999999999>", b"<li>", b"<!--", b"&#x10FFFF;", b"&amp", b"> ", b"- ", b"1. ",
          b"```", b"|---|", b"[", b"](", b"*", b"_", b"~~", b"\n\n", b"\xc3", b"\xed\xa0\x80", b"\x00"]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(6)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(pos, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[pos:pos] = rng.choice(TOKENS)
        elif op == 2 and data:
            end = min(len(data), pos + rng.randint(1, 64))
            del data[pos:end]
        elif op == 3 and data:
            start = rng.randrange(len(data))
            chunk = data[start:start + rng.randint(1, 256)]
            data[pos:pos] = chunk * rng.randint(1, 20)
        elif op == 4:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            data = data[:pos]
    return bytes(data[:1 << 20])


def run(cmd, data, env):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, timeout=BOUND)
        return p.returncode, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return "hang", b"", BOUND


def main():
    pbctl = os.path.abspath(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    rng = random.Random(int(os.environ.get("FUZZ_SEED", "13")))
    seeds = {}
    for reader, folder in (("markdown", "markdown"), ("html", "html"), ("rtf", "rtf")):
        path = os.path.join(CORPUS, folder)
        seeds[reader] = [open(os.path.join(path, n), "rb").read() for n in sorted(os.listdir(path))]
    store = tempfile.mkdtemp(prefix="pbctl-fuzz-cli-")
    env = dict(os.environ, PBCTL_STORE=store, PBCTL_BACKEND="store")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    runs = findings = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            reader = rng.choice(list(seeds))
            data = mutate(rng, rng.choice(seeds[reader]))
            writer = rng.choice(WRITERS)
            if rng.random() < 0.7:
                cmds = [[pbctl, "convert", "--from", reader, "--to", writer]]
            else:
                types = {"markdown": "net.daringfireball.markdown", "html": "public.html", "rtf": "public.rtf"}
                cmds = [[pbctl, "copy", "--type", types[reader]], [pbctl, "paste", "--as", writer]]
            for cmd in cmds:
                runs += 1
                code, err, _ = run(cmd, data if cmd[1] != "paste" else b"", env)
                problem = None
                if code == "hang":
                    problem = "no answer within %d s" % BOUND
                elif code < 0 or code not in DOCUMENTED:
                    problem = "exit %s" % code
                elif code != 0 and not err.strip():
                    problem = "exit %d with no message" % code
                if problem:
                    findings += 1
                    folder = os.path.join(REGRESSIONS, reader)
                    os.makedirs(folder, exist_ok=True)
                    name = "cli-%s-%d" % (cmd[1], abs(hash(data)) % 10**8)
                    with open(os.path.join(folder, name), "wb") as f:
                        f.write(data)
                    print("fuzz-cli: %s: %s -> kept as %s/%s" % (" ".join(cmd[1:]), problem, reader, name), file=sys.stderr)
                    break
    finally:
        shutil.rmtree(store, ignore_errors=True)
    print("%-18s %8d %10d %8.0f %7s %9d" % ("cli (release)", seconds, runs, runs / seconds, "-", findings))
    return 1 if findings else 0


sys.exit(main())
