#!/usr/bin/python3
"""A CLIPBOARD owner on plain Xlib (through ctypes) that starts an INCR transfer and stops midway.

  incr_peer.py FILE CHUNKS   own CLIPBOARD offering UTF8_STRING with FILE's bytes, always sent in INCR
                             chunks of 64 KiB (ICCCM 2.7.2: each written once the requestor deleted
                             the last); print 'ready'; once CHUNKS chunks of a transfer are written
                             (fewer than the whole), print 'midway' and answer nothing more: an owner
                             to kill in the middle of a transfer. At most 60 s.

GTK and xclip send their chunks as fast as they are taken, so killing them "midway" is a race; this
owner stops at a chunk it chooses.
"""
import ctypes
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
X.XSetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
X.XGetSelectionOwner.restype = ctypes.c_ulong
X.XGetSelectionOwner.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
X.XNextEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
X.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int,
                              ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
X.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
X.XSelectInput.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_long]
X.XFlush.argtypes = [ctypes.c_void_p]

PROPERTY_NOTIFY, SELECTION_CLEAR, SELECTION_REQUEST, SELECTION_NOTIFY = 28, 29, 30, 31
PROPERTY_DELETE = 1
PROPERTY_CHANGE_MASK = 1 << 22
XA_ATOM = 4
CHUNK = 64 << 10


class SelectionRequest(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("owner", ctypes.c_ulong), ("requestor", ctypes.c_ulong),
                ("selection", ctypes.c_ulong), ("target", ctypes.c_ulong), ("property", ctypes.c_ulong),
                ("time", ctypes.c_ulong)]


class SelectionNotify(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("requestor", ctypes.c_ulong), ("selection", ctypes.c_ulong),
                ("target", ctypes.c_ulong), ("property", ctypes.c_ulong), ("time", ctypes.c_ulong)]


class PropertyEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("atom", ctypes.c_ulong),
                ("time", ctypes.c_ulong), ("state", ctypes.c_int)]


class Event(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("request", SelectionRequest), ("property", PropertyEvent),
                ("pad", ctypes.c_long * 24)]


def main():
    with open(sys.argv[1], "rb") as f:
        payload = f.read()
    stop_after = int(sys.argv[2])
    display = X.XOpenDisplay(None)
    if not display:
        return 2
    window = X.XCreateSimpleWindow(display, X.XDefaultRootWindow(display), 0, 0, 1, 1, 0, 0, 0)
    atom = lambda name: X.XInternAtom(display, name.encode(), 0)
    clipboard, targets, utf8, incr = atom("CLIPBOARD"), atom("TARGETS"), atom("UTF8_STRING"), atom("INCR")
    X.XSetSelectionOwner(display, clipboard, window, 0)
    if X.XGetSelectionOwner(display, clipboard) != window:
        return 2
    print("ready", flush=True)
    transfers = {}  # (requestor, property) -> offset of the next chunk
    deadline = time.time() + 60
    event = Event()
    while time.time() < deadline:
        X.XNextEvent(display, ctypes.byref(event))
        if event.type == SELECTION_CLEAR:
            return 0
        if event.type == SELECTION_REQUEST:
            request = event.request
            property = request.property or request.target
            if request.target == targets:
                items = (ctypes.c_long * 2)(targets, utf8)
                X.XChangeProperty(display, request.requestor, property, XA_ATOM, 32, 0, items, 2)
            elif request.target == utf8:
                X.XSelectInput(display, request.requestor, PROPERTY_CHANGE_MASK)
                size = (ctypes.c_long * 1)(len(payload))
                X.XChangeProperty(display, request.requestor, property, incr, 32, 0, size, 1)
                transfers[(request.requestor, property)] = 0
            else:
                property = 0
            reply = SelectionNotify(SELECTION_NOTIFY, 0, 1, None, request.requestor, request.selection,
                                    request.target, property, request.time)
            X.XSendEvent(display, request.requestor, 0, 0, ctypes.byref(reply))
            X.XFlush(display)
        elif event.type == PROPERTY_NOTIFY and event.property.state == PROPERTY_DELETE:
            key = (event.property.window, event.property.atom)
            if key not in transfers:
                continue
            offset = transfers[key]
            if offset >= stop_after * CHUNK:
                print("midway", flush=True)
                time.sleep(max(0, deadline - time.time()))
                return 0
            chunk = payload[offset:offset + CHUNK]
            X.XChangeProperty(display, key[0], key[1], utf8, 8, 0, chunk, len(chunk))
            if chunk:
                transfers[key] = offset + len(chunk)
            else:
                del transfers[key]
            X.XFlush(display)
    return 0


if __name__ == "__main__":
    sys.exit(main())
