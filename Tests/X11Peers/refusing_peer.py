#!/usr/bin/python3
"""A selection owner on plain Xlib (through ctypes) that lists targets and refuses them, or answers one.

  refusing_peer.py SELECTION[+unset] [LOG] [SERVE TEXT]
      own SELECTION (CLIPBOARD, PRIMARY), listing TARGETS, UTF8_STRING, STRING and text/html in TARGETS;
      answer every other request with the ICCCM refusal (a SelectionNotify whose property is None),
      except SERVE (a target name), answered with TEXT's bytes under that type. Each request's target
      name is appended to LOG, one a line ('-' for no log), so a test can count a reader's round trips.
      With +unset the refusal is the careless one some owners make: the reply names the property asked
      for and the owner never sets it.
      Print 'ready', then fork: the parent exits, the child serves until the selection is taken or 30 s pass.

GTK and xclip never refuse a target they list; an owner that does (a crashed converter, a client that
lost its data) is what a reader must report as a refusal, not as a malformed reply.
"""
import ctypes
import os
import sys
import time

X = ctypes.cdll.LoadLibrary("libX11.so.6")
X.XOpenDisplay.restype = ctypes.c_void_p
X.XOpenDisplay.argtypes = [ctypes.c_char_p]
X.XDefaultRootWindow.restype = ctypes.c_ulong
X.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
X.XCreateSimpleWindow.restype = ctypes.c_ulong
X.XCreateSimpleWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_int] * 2 + [ctypes.c_uint] * 3 + [ctypes.c_ulong] * 2
X.XInternAtom.restype = ctypes.c_ulong
X.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
X.XGetAtomName.restype = ctypes.c_char_p
X.XGetAtomName.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
X.XSetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
X.XGetSelectionOwner.restype = ctypes.c_ulong
X.XGetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
X.XNextEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
X.XPending.argtypes = [ctypes.c_void_p]
X.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int,
                              ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
X.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
X.XFlush.argtypes = [ctypes.c_void_p]

SELECTION_CLEAR, SELECTION_REQUEST, SELECTION_NOTIFY = 29, 30, 31
XA_ATOM = 4


class SelectionRequest(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("owner", ctypes.c_ulong), ("requestor", ctypes.c_ulong),
                ("selection", ctypes.c_ulong), ("target", ctypes.c_ulong), ("property", ctypes.c_ulong),
                ("time", ctypes.c_ulong)]


class SelectionNotify(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("requestor", ctypes.c_ulong), ("selection", ctypes.c_ulong),
                ("target", ctypes.c_ulong), ("property", ctypes.c_ulong), ("time", ctypes.c_ulong)]


class Event(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("request", SelectionRequest), ("pad", ctypes.c_long * 24)]


def main():
    unset = sys.argv[1].endswith("+unset")
    selection_name = sys.argv[1].split("+")[0]
    log = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
    serve = sys.argv[3] if len(sys.argv) > 4 else None
    text = sys.argv[4].encode() if len(sys.argv) > 4 else b""
    display = X.XOpenDisplay(None)
    if not display:
        return 2
    window = X.XCreateSimpleWindow(display, X.XDefaultRootWindow(display), 0, 0, 1, 1, 0, 0, 0)
    atom = lambda name: X.XInternAtom(display, name.encode(), 0)
    selection, targets = atom(selection_name), atom("TARGETS")
    listed = [targets, atom("UTF8_STRING"), atom("STRING"), atom("text/html")]
    served = atom(serve) if serve else None
    X.XSetSelectionOwner(display, selection, window, 0)
    if X.XGetSelectionOwner(display, selection) != window:
        return 2
    X.XFlush(display)
    print("ready", flush=True)
    if os.fork() != 0:
        os._exit(0)
    os.setsid()
    deadline = time.time() + 30
    event = Event()
    while time.time() < deadline:
        if not X.XPending(display):
            time.sleep(0.005)
            continue
        X.XNextEvent(display, ctypes.byref(event))
        if event.type == SELECTION_CLEAR:
            return 0
        if event.type != SELECTION_REQUEST:
            continue
        request = event.request
        if log:
            with open(log, "a") as handle:
                handle.write(X.XGetAtomName(display, request.target).decode() + "\n")
        property = request.property or request.target
        if request.target == targets:
            items = (ctypes.c_long * len(listed))(*listed)
            X.XChangeProperty(display, request.requestor, property, XA_ATOM, 32, 0, items, len(listed))
        elif served is not None and request.target == served:
            X.XChangeProperty(display, request.requestor, property, served, 8, 0, text, len(text))
        elif not unset:
            property = 0  # the refusal
        # else: the careless refusal some owners make, naming the property and never setting it
        reply = SelectionNotify(SELECTION_NOTIFY, 0, 1, None, request.requestor, request.selection,
                                request.target, property, request.time)
        X.XSendEvent(display, request.requestor, 0, 0, ctypes.byref(reply))
        X.XFlush(display)
    return 0


if __name__ == "__main__":
    sys.exit(main())
