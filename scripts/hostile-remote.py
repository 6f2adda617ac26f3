#!/usr/bin/env python3
"""A hostile end of the `pbctl ssh` protocol (docs/remote-protocol.md), for tests.

    hostile-remote.py client MODE            # a remote pbctl that lies, through $PBCTL_REMOTE
    hostile-remote.py server MODE SOCKET     # a local `pbctl ssh` that lies, listening on SOCKET

Client modes write to the local clipboard what a well-behaved pbctl never sends, and print the
server's answer ("done N" or "failure CODE MESSAGE"):
    escape-type     a type name holding ESC ] ... BEL (a terminal title) and a line break
    escape-source   a source application holding ESC [2J (clear the screen) and a fake line
    far-date        an item dated 2099 (text "from the future")
    file-list       a file list naming /tmp/pbctl-hostile/report.txt as a bare file:/// URI
    many-types      300 representations
    spaced-type     text beside a representation typed `x y` (a name the history's reader refuses)
    huge-frame      a frame announcing 100 MiB (the connection must be dropped, nothing else)
    marker-mime     a secret whose password-manager hint is spelled by its MIME name, in another case
                    (x-kde-passwordManagerHint as the type, not the name a local copy uses), and a
                    paste-once copy of plain text

Server modes answer a real pbctl (PBCTL_REMOTE=SOCKET) for up to 20 connections, then exit:
    escape-listing  a listing whose type and source hold terminal escapes
    endless         a listing announcing 5 bytes of text, then 50 MiB of chunks for it
    slow            a listing of text of no announced size, then 64 KiB chunks every 0.1 s for a minute
    file-list       a listing with text/uri-list naming file:///etc/hostname
"""
import json
import os
import socket
import struct
import sys


def frame(tag, body=b""):
    return struct.pack("<I", len(body) + 1) + bytes([tag]) + body


def string(text):
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<I", len(data)) + data


def optional(text):
    return b"\x00" if text is None else b"\x01" + string(text)


def blob(value):
    data = json.dumps(value).encode()
    return struct.pack("<I", len(data)) + data


def receive(sock):
    head = b""
    while len(head) < 4:
        part = sock.recv(4 - len(head))
        if not part:
            return None, b""
        head += part
    (length,) = struct.unpack("<I", head)
    body = b""
    while len(body) < length:
        part = sock.recv(min(1 << 20, length - len(body)))
        if not part:
            return None, b""
        body += part
    return body[0], body[1:]


def answer(sock):
    tag, body = receive(sock)
    if tag == 66:
        return "done %d" % struct.unpack("<q", body[:8])[0]
    if tag == 67:
        (length,) = struct.unpack("<I", body[1:5])
        return "failure %d %s" % (body[0], body[5:5 + length].decode(errors="replace"))
    return "closed" if tag is None else "tag %d" % tag


def write(sock, representations, metadata=None):
    metadata = metadata or {"created": "2026-01-01T00:00:00Z", "flags": 0, "extra": {}}
    sock.sendall(frame(4, string("general") + blob(metadata) + blob({"pasteOnce": False})))
    for type_name, data in representations:
        sock.sendall(frame(5, string(type_name) + optional(None)))
        sock.sendall(frame(32, data))
        sock.sendall(frame(33))
    sock.sendall(frame(6))
    return answer(sock)


def client(mode):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(os.environ["PBCTL_REMOTE"])
    sock.sendall(frame(1, struct.pack("<H", 1)))
    tag, _ = receive(sock)
    assert tag == 64, "no welcome"
    if mode == "escape-type":
        print(write(sock, [("text/x\x1b]0;pwned\x07\nfake", b"hello")]))
    elif mode == "escape-source":
        meta = {"created": "2026-01-01T00:00:00Z", "flags": 0, "extra": {}, "sourceApplication": "\x1b[2J\nroot# evil"}
        print(write(sock, [("public.utf8-plain-text", b"from a hostile source")], meta))
    elif mode == "far-date":
        meta = {"created": "2099-01-01T00:00:00Z", "flags": 0, "extra": {}}
        print(write(sock, [("public.utf8-plain-text", b"from the future")], meta))
    elif mode == "file-list":
        print(write(sock, [("public.file-url", b"file:///tmp/pbctl-hostile/report.txt\r\n"),
                           ("org.gnome.copied-files", b"cut\nfile:///tmp/pbctl-hostile/report.txt")]))
    elif mode == "many-types":
        print(write(sock, [("public.utf8-plain-text" if i == 0 else "org.example.type-%d" % i, b"x") for i in range(300)]))
    elif mode == "marker-mime":
        print(write(sock, [("public.utf8-plain-text", b"hunter2-remote-secret"), ("X-KDE-PasswordManagerHint", b"secret")]))
        sock.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(os.environ["PBCTL_REMOTE"])
        sock.sendall(frame(1, struct.pack("<H", 1)))
        receive(sock)
        sock.sendall(frame(4, string("general") + blob({"created": "2026-01-01T00:00:00Z", "flags": 0, "extra": {}})
                           + blob({"pasteOnce": True})))
        sock.sendall(frame(5, string("public.utf8-plain-text") + optional(None)))
        sock.sendall(frame(32, b"remote-once-5151"))
        sock.sendall(frame(33))
        sock.sendall(frame(6))
        print(answer(sock))
    elif mode == "spaced-type":
        print(write(sock, [("public.utf8-plain-text", b"valid text"), ("x y", b"hostile")]))
    elif mode == "huge-frame":
        sock.sendall(struct.pack("<I", 100 << 20) + bytes([4]) + b"\x00" * 4096)
        print(answer(sock))
    else:
        sys.exit("unknown client mode " + mode)


def listing(types, source=None):
    return [{"types": [{"type": t, "size": s} for t, s in types],
             "metadata": {"created": "2026-01-01T00:00:00Z", "flags": 0, "extra": {}, "sourceApplication": source}}]


def server(mode, path):
    if os.path.exists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(4)
    listener.settimeout(30)
    for _ in range(20):
        try:
            sock, _ = listener.accept()
        except socket.timeout:
            return
        sock.settimeout(10)
        try:
            serve(sock, mode)
        except (OSError, socket.timeout):
            pass
        finally:
            sock.close()


def serve(sock, mode):
    tag, _ = receive(sock)
    if tag != 1:
        return
    sock.sendall(frame(64, struct.pack("<H", 1) + bytes([3]) + string("a hostile host")))
    while True:
        tag, body = receive(sock)
        if tag is None:
            return
        if tag == 2:  # listItems
            if mode == "escape-listing":
                items = listing([("text/x\x1b]0;pwned\x07", 5)], source="\x1b[2Jevil")
            elif mode == "endless":
                items = listing([("public.utf8-plain-text", 5)])
            elif mode == "slow":
                items = listing([("public.utf8-plain-text", None)])
            else:
                items = listing([("public.file-url", None)])
            sock.sendall(frame(65, blob(items)))
        elif tag == 3:  # read
            if mode == "endless":
                chunk = b"x" * (1 << 20)
                for _ in range(50):
                    sock.sendall(frame(32, chunk))
                sock.sendall(frame(33))
            elif mode == "slow":
                import time
                for _ in range(600):
                    sock.sendall(frame(32, b"y" * 65536))
                    time.sleep(0.1)
                sock.sendall(frame(33))
            elif mode == "file-list":
                sock.sendall(frame(32, b"file:///etc/hostname\r\n"))
                sock.sendall(frame(33))
            else:
                sock.sendall(frame(32, b"hello"))
                sock.sendall(frame(33))
        elif tag == 8:  # changeCount
            sock.sendall(frame(66, struct.pack("<q", 1)))
        elif tag == 9:  # info
            sock.sendall(frame(69, blob({"name": "store"})))
        else:
            sock.sendall(frame(67, bytes([7]) + string("not served here")))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "client":
        client(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "server":
        server(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
