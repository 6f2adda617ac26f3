#!/usr/bin/env python3
"""The differential check of pbctl's xclip, xsel, wl-copy and wl-paste personalities.

Each case runs one argument vector twice against the same display: once with the real tool (Debian 12's
xclip 0.13, xsel 1.2.0, wl-clipboard 2.1.0) and once with pbctl under that name (a symbolic link), from
the same starting state (nothing owned, or content put there by a real tool or by pbctl), and compares
the exit status, standard output and standard error byte for byte, then what other programs (the real
tools) read afterwards. X11 cases run on a private Xvfb, Wayland cases on a private headless sway
(scripts/headless-sway.sh). A case marked `differs` is a difference pbctl keeps on purpose (README,
"xclip, xsel, wl-copy and wl-paste"); it counts as kept, not failed, and its reason is printed.
"Beyond" cases run pbctl alone and check what only pbctl does (a type made by negotiation). Every
vector is then run once more with no display at all (the store), and must return within 5 s.

Usage: scripts/compat-differential.py PBCTL [--only SUBSTRING[|SUBSTRING…]] [--verbose] [--show]
Prints one line per case and a summary; exits 1 when a case fails.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ["xclip", "xsel", "wl-copy", "wl-paste"]
REAL = {name: "/usr/bin/" + name for name in TOOLS}


def png_2x2():
    """A small PNG (red, 2x2) made without ImageMagick: zlib and struct from the standard library."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


PNG = png_2x2()
MARKDOWN = b"# Title\n\nSome *emphasis* and `code`.\n"
BIG = b"".join(b"line %06d of a long text\n" % i for i in range(12000))  # 300 KB: INCR on X11


class Case:
    def __init__(self, name, display, argv=None, shell=None, stdin=b"", stdin_file=None, setup=(), then=(), differs=None,
                 foreground=False, stdout_name=None, beyond=None, pbctl_only=False, settle=0.15):
        self.name = name
        self.display = display  # "x11" or "wayland"
        self.argv = argv
        self.shell = shell
        self.stdin = stdin
        self.stdin_file = stdin_file
        self.setup = list(setup)
        self.then = list(then)
        self.differs = differs
        self.foreground = foreground
        self.stdout_name = stdout_name
        self.beyond = beyond
        self.pbctl_only = pbctl_only or beyond is not None
        self.settle = settle


class Session:
    """A private display (Xvfb or headless sway) with its own store, history, cache and runtime folder."""

    def __init__(self, kind, pbctl, links, work):
        self.kind = kind
        self.pbctl = pbctl
        self.links = links
        self.work = work
        self.home = tempfile.mkdtemp(prefix="home-", dir=work)
        self.process = None
        env = {
            "PATH": "/usr/bin:/bin", "HOME": self.home, "LANG": "C.UTF-8", "PBCTL": pbctl,
            "PBCTL_STORE": os.path.join(self.home, "store"), "PBCTL_HISTORY": os.path.join(self.home, "history"),
            "XDG_CACHE_HOME": os.path.join(self.home, "cache"), "XDG_CONFIG_HOME": os.path.join(self.home, "config"),
            "TMPDIR": self.home,
            "PEERS": os.path.join(ROOT, "Tests/X11Peers"),
            "GNUPGHOME": os.path.join(work, "gnupg"), "PASSWORD_STORE_DIR": os.path.join(work, "password-store"),
        }
        os.makedirs(env["XDG_CACHE_HOME"])
        if kind == "x11":
            read, write = os.pipe()
            self.process = subprocess.Popen(
                ["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-noreset", "-screen", "0", "640x480x24"],
                pass_fds=[write], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            os.close(write)
            number = b""
            deadline = time.time() + 10
            while not number.endswith(b"\n") and time.time() < deadline:
                piece = os.read(read, 16)
                if not piece:
                    break
                number += piece
            os.close(read)
            env["DISPLAY"] = ":" + number.decode().strip()
            env["XDG_RUNTIME_DIR"] = os.path.join(self.home, "runtime")
            os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
        elif kind == "wayland":
            # Beside the work folder, not in it: sway runs as another user, who must reach its runtime folder.
            runtime = work.rstrip("/") + "-sway"
            out = subprocess.run([os.path.join(ROOT, "scripts/headless-sway.sh"), runtime], capture_output=True, text=True, check=True)
            socket, pid = out.stdout.split()
            self.sway_pid = int(pid)
            env["XDG_RUNTIME_DIR"] = runtime
            env["WAYLAND_DISPLAY"] = socket
        self.env = env

    def stop(self):
        if self.kind == "x11" and self.process:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait()
        elif self.kind == "wayland":
            os.kill(self.sway_pid, signal.SIGTERM)
            time.sleep(0.2)
            shutil.rmtree(self.env["XDG_RUNTIME_DIR"], ignore_errors=True)

    def reset(self):
        """Nothing owned, nothing stored: every owner of the last case gives up (they exit when they lose
        the selection)."""
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=self.env, timeout=5)
        if self.kind == "x11":
            for flag in ["-p", "-s", "-b"]:
                subprocess.run([REAL["xsel"], "-c", flag], **quiet)
        elif self.kind == "wayland":
            subprocess.run([REAL["wl-copy"], "--clear"], **quiet)
            subprocess.run([REAL["wl-copy"], "--clear", "--primary"], **quiet)
        for folder in ["store", "history"]:
            shutil.rmtree(os.path.join(self.home, folder), ignore_errors=True)
        time.sleep(0.05)

    def shell(self, command, stdin=b"", timeout=5):
        """A setup or reading command, with the real tools (and $PBCTL for pbctl itself)."""
        return run(["bash", "-c", command], self.env, stdin=stdin, timeout=timeout, cwd=self.work)


def run(argv, env, stdin=b"", stdin_file=None, timeout=5, cwd=None, stdout_name=None):
    """Runs argv with stdout and stderr in files (a forked owner that keeps them open, as xclip's does,
    cannot hold the run up); returns (status, stdout, stderr, seconds). A run past `timeout` is killed
    and reported with status "timeout"."""
    folder = tempfile.mkdtemp(prefix="run-", dir=cwd)
    out_path = os.path.join(folder, stdout_name or "stdout")
    err_path = os.path.join(folder, "stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        if stdin_file:
            source = open(stdin_file, "rb")
        else:
            source = tempfile.TemporaryFile(dir=folder)
            source.write(stdin)
            source.seek(0)
        start = time.time()
        process = subprocess.Popen(argv, stdin=subprocess.PIPE if not stdin_file and stdin else source, stdout=out, stderr=err,
                                   env=env, cwd=cwd, start_new_session=True)
        try:
            if not stdin_file and stdin:
                try:
                    process.stdin.write(stdin)
                    process.stdin.close()
                except BrokenPipeError:
                    pass  # the tool did not read its input (help, a usage error)
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
            status = "timeout"
        seconds = time.time() - start
        source.close()
    with open(out_path, "rb") as handle:
        stdout = handle.read()
    with open(err_path, "rb") as handle:
        stderr = handle.read()
    shutil.rmtree(folder, ignore_errors=True)
    return status, stdout, stderr, seconds


def env_for(session, with_pbctl):
    env = dict(session.env)
    if with_pbctl:
        env["PATH"] = session.links + ":" + env["PATH"]
    # A folder holding xsel alone (this side's), for callers that must not find xclip (Neovim's xsel probe).
    env["XSEL_ONLY"] = os.path.join(session.work, "pbctl-xsel-only" if with_pbctl else "real-xsel-only")
    return env


def execute(case, session, with_pbctl, display=True):
    """One run of a case: setup, the vector, then the reads. Returns a dict of what was seen."""
    session.reset()
    seen = {}
    env = env_for(session, with_pbctl)
    if not display:
        for name in ["DISPLAY", "WAYLAND_DISPLAY"]:
            env.pop(name, None)
    for command in case.setup:
        status, out, err, _ = session.shell(command)
        if status != 0:
            seen["setup"] = (command, status, err)
    if case.setup:
        time.sleep(case.settle)
    stdin_file = os.path.join(session.work, case.stdin_file) if case.stdin_file else None
    argv = case.argv if case.argv is not None else ["bash", "-c", case.shell]
    # A display named on the command line is the session's.
    argv = [session.env.get("DISPLAY", ":0") if part == "DISPLAY" else part for part in argv]
    if case.foreground and display:
        seen.update(run_foreground(case, session, env, argv, stdin_file))
        return seen
    status, out, err, seconds = run(argv, env, stdin=case.stdin, stdin_file=stdin_file, cwd=session.work, stdout_name=case.stdout_name)
    seen["status"], seen["stdout"], seen["stderr"], seen["seconds"] = status, out, err, seconds
    if display:
        time.sleep(case.settle)
        for index, command in enumerate(case.then):
            seen["then%d" % index] = session.shell(command.split(":", 1)[1] if command.startswith("superset:") else command)[:3]
    return seen


def run_foreground(case, session, env, argv, stdin_file):
    """A tool that serves in the foreground (xclip -quiet, xsel -n, wl-copy -f): it must still run after
    half a second, the reads see its content, and it exits once another client takes the selection."""
    folder = tempfile.mkdtemp(prefix="fg-", dir=session.work)
    out_path, err_path = os.path.join(folder, "out"), os.path.join(folder, "err")
    seen = {}
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err, env=env, cwd=session.work, start_new_session=True)
        try:
            process.stdin.write(case.stdin)
            process.stdin.close()
        except BrokenPipeError:
            pass
        time.sleep(0.6)
        seen["running"] = process.poll() is None
        for index, command in enumerate(case.then):
            seen["then%d" % index] = session.shell(command.split(":", 1)[1] if command.startswith("superset:") else command)[:3]
        session.reset()
        try:
            seen["status"] = process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            seen["status"] = "did not exit when the selection was taken"
    with open(out_path, "rb") as handle:
        seen["stdout"] = handle.read()
    with open(err_path, "rb") as handle:
        seen["stderr"] = handle.read()
    shutil.rmtree(folder, ignore_errors=True)
    return seen


def compare(case, real, ours):
    """The differences between the two runs, as readable lines (empty: the same)."""
    problems = []
    keys = ["setup", "status", "running", "stdout", "stderr"] + ["then%d" % i for i in range(len(case.then))]
    for key in keys:
        a, b = real.get(key), ours.get(key)
        if key.startswith("then"):
            command = case.then[int(key[4:])]
            if command.startswith("superset:") and a is not None and b is not None:
                missing = set(a[1].splitlines()) - set(b[1].splitlines())
                if a[0] != b[0] or missing:
                    problems.append("%s: real %r, pbctl %r (missing %r)" % (command, a[:2], b[:2], sorted(missing)))
                continue
            if a is not None and b is not None and a[:2] != b[:2]:
                problems.append("%s: real %r, pbctl %r" % (command, shorten(a[:2]), shorten(b[:2])))
            continue
        if a != b:
            problems.append("%s: real %r, pbctl %r" % (key, shorten(a), shorten(b)))
    return problems


def shorten(value):
    text = repr(value)
    return text if len(text) < 300 else text[:300] + "…"


def prepare_pass(work):
    """A password store for pass (a GnuPG key without passphrase, one entry), when pass and gpg are there."""
    if not (shutil.which("pass") and shutil.which("gpg")):
        return
    env = dict(os.environ, GNUPGHOME=os.path.join(work, "gnupg"), PASSWORD_STORE_DIR=os.path.join(work, "password-store"))
    os.makedirs(env["GNUPGHOME"], mode=0o700)
    quiet = dict(env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "pbctl-compat@test", "default", "default", "never"], **quiet)
    subprocess.run(["pass", "init", "pbctl-compat@test"], **quiet)
    subprocess.run(["pass", "insert", "-e", "test/site"], input=b"s3cret-pw\n", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 64
    pbctl = os.path.abspath(args[0])
    only = args[args.index("--only") + 1] if "--only" in args else None
    verbose = "--verbose" in args
    from compat_cases import cases  # noqa: E402 (the table lives beside this script)

    work = tempfile.mkdtemp(prefix="pbctl-compat-")
    links = os.path.join(work, "links")
    os.makedirs(links)
    for name in TOOLS:
        os.symlink(pbctl, os.path.join(links, name))
    with open(os.path.join(work, "red.png"), "wb") as handle:
        handle.write(PNG)
    with open(os.path.join(work, "notes.md"), "wb") as handle:
        handle.write(MARKDOWN)
    with open(os.path.join(work, "a.txt"), "wb") as handle:
        handle.write(b"first file\n")
    with open(os.path.join(work, "b.txt"), "wb") as handle:
        handle.write(b"second file\n")
    with open(os.path.join(work, "big.txt"), "wb") as handle:
        handle.write(BIG)
    for side, target in [("real", REAL["xsel"]), ("pbctl", pbctl)]:
        os.makedirs(os.path.join(work, side + "-xsel-only"))
        os.symlink(target, os.path.join(work, side + "-xsel-only", "xsel"))
    prepare_pass(work)
    # --only A|B: the cases whose name holds any of the substrings.
    selected = [case for case in cases(PNG, MARKDOWN, BIG) if only is None or any(part in case.name for part in only.split("|"))]
    sessions = {}
    counts = {"same": 0, "kept": 0, "failed": 0, "beyond": 0, "beyond-failed": 0, "slow": 0}
    failures = []
    slowest = 0.0
    try:
        for case in selected:
            if case.display not in sessions:
                sessions[case.display] = Session(case.display, pbctl, links, work)
            session = sessions[case.display]
            if case.beyond is not None:
                ours = execute(case, session, True)
                verdict = case.beyond(ours)
                key = "beyond" if verdict is True else "beyond-failed"
                counts[key] += 1
                line = "%-14s %s" % (key, case.name)
                if verdict is not True:
                    failures.append((case.name, [str(verdict), shorten(ours)]))
            else:
                real = execute(case, session, False)
                ours = execute(case, session, True)
                problems = compare(case, real, ours)
                if problems and case.differs:
                    counts["kept"] += 1
                    line = "%-14s %s — %s" % ("kept", case.name, case.differs)
                elif problems:
                    counts["failed"] += 1
                    failures.append((case.name, problems))
                    line = "%-14s %s" % ("FAILED", case.name)
                else:
                    counts["same"] += 1
                    line = "%-14s %s" % ("same", case.name)
                if verbose and problems:
                    line += "\n    " + "\n    ".join(problems)
                if "--show" in args:
                    line += "\n    pbctl: status %r stdout %s stderr %s" % (ours.get("status"), shorten(ours.get("stdout")), shorten(ours.get("stderr")))
                    line += "".join("\n    %s: %s" % (key, shorten(value)) for key, value in ours.items() if key.startswith("then"))
            # Without a display pbctl uses its store: the vector must come back within 5 s.
            alone = execute(case, session, True, display=False)
            slowest = max(slowest, alone.get("seconds", 0))
            if alone.get("status") == "timeout" or alone.get("seconds", 0) > 5:
                counts["slow"] += 1
                failures.append((case.name, ["without a display: %r" % shorten(alone)]))
                line += "  [NO DISPLAY: slow]"
            print(line, flush=True)
    finally:
        for session in sessions.values():
            session.stop()
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=dict(os.environ, GNUPGHOME=os.path.join(work, "gnupg")),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)
    total = counts["same"] + counts["kept"] + counts["failed"]
    print("\n%d vectors against the real tools: %d the same, %d kept differences, %d failed; %d beyond cases (%d failed); "
          "%d vectors over 5 s without a display (slowest %.2f s)" % (total, counts["same"], counts["kept"], counts["failed"], counts["beyond"] + counts["beyond-failed"],
                                                    counts["beyond-failed"], counts["slow"], slowest))
    for name, problems in failures:
        print("\n" + name)
        for problem in problems:
            print("    " + problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
