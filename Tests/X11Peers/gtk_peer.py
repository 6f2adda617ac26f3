#!/usr/bin/python3
"""GTK 3 clipboard peer for pbctl's X11 integration tests.

  gtk_peer.py paste TARGET     write the CLIPBOARD converted to TARGET to stdout (exit 1 when refused)
  gtk_peer.py text             write gtk_clipboard_wait_for_text() to stdout
  gtk_peer.py window-text      the same from a mapped window (GDK_BACKEND=wayland: a Wayland client reads
                               the selection only once a surface of its own has keyboard focus)
  gtk_peer.py text-of TARGET   write the CLIPBOARD converted to TARGET, decoded as text by GTK
                               (gtk_selection_data_get_text: Xlib for COMPOUND_TEXT), to stdout
  gtk_peer.py targets          print the CLIPBOARD's TARGETS, one per line
  gtk_peer.py uris             print gtk_clipboard_wait_for_uris(), one per line (exit 1 when none)
  gtk_peer.py image FILE       save gtk_clipboard_wait_for_image() as PNG in FILE, print "W H" (exit 1 when none)
  gtk_peer.py copy TARGET FILE [TARGET FILE...]
                               own CLIPBOARD serving FILE's bytes under TARGET (text/plain targets via
                               set_text when TARGET is 'text'); print 'ready' once owned; serve
                               until killed (at most 60 s)
  gtk_peer.py copy-store-stall TARGET FILE
                               own CLIPBOARD serving FILE's bytes under TARGET, then hand it to the
                               clipboard manager (gtk_clipboard_store) but hang on every request for
                               content from then on: print 'asked' on the first (a stalled save)
  gtk_peer.py copy-many COUNT TARGET FILE
                               own CLIPBOARD offering COUNT private targets (x-pbctl-private/N, two
                               bytes each) before TARGET, which serves FILE's bytes; print 'ready'
  gtk_peer.py copy-image W H   own CLIPBOARD with a W×H image (GTK offers image/png and other formats)
  gtk_peer.py own SELECTION      own the selection named SELECTION (a stand-in for another clipboard
                               manager); print 'ready'; exit when it is taken
  gtk_peer.py copy-stall TARGET [SELECTION]
                               own SELECTION (default CLIPBOARD) offering TARGET; print 'ready', then on
                               the first request for content print 'asked' and hang (a stalled owner,
                               to be killed)
  gtk_peer.py copy-store TARGET FILE [TARGET FILE...]
                               own CLIPBOARD like copy, then hand it to the clipboard manager as an
                               exiting GTK application does (gtk_clipboard_store: 'text' alone goes
                               through set_text, so SAVE_TARGETS comes without a target list;
                               otherwise set_can_store lists the targets); print 'stored', exit
"""
import sys
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gtk, Gdk, GLib, GdkPixbuf

CLIPBOARD = Gdk.Atom.intern("CLIPBOARD", False)


def main():
    command = sys.argv[1]
    clipboard = Gtk.Clipboard.get(CLIPBOARD)
    if command == "paste":
        data = clipboard.wait_for_contents(Gdk.Atom.intern(sys.argv[2], False))
        if data is None or data.get_length() < 0:
            return 1
        sys.stdout.buffer.write(data.get_data())
        return 0
    if command == "text-of":
        data = clipboard.wait_for_contents(Gdk.Atom.intern(sys.argv[2], False))
        text = data.get_text() if data is not None else None
        if text is None:
            return 1
        sys.stdout.write(text)
        return 0
    if command == "window-text":
        window = Gtk.Window()
        window.set_default_size(64, 64)
        window.show_all()
        read = {}

        def later():
            read["text"] = clipboard.wait_for_text()
            Gtk.main_quit()
            return False
        GLib.timeout_add(800, later)
        GLib.timeout_add_seconds(8, Gtk.main_quit)
        Gtk.main()
        if read.get("text") is None:
            return 1
        sys.stdout.write(read["text"])
        return 0
    if command == "text":
        text = clipboard.wait_for_text()
        if text is None:
            return 1
        sys.stdout.write(text)
        return 0
    if command == "image":
        pixbuf = clipboard.wait_for_image()
        if pixbuf is None:
            return 1
        pixbuf.savev(sys.argv[2], "png", [], [])
        print(pixbuf.get_width(), pixbuf.get_height())
        return 0
    if command == "uris":
        uris = clipboard.wait_for_uris()
        if not uris:
            return 1
        for uri in uris:
            print(uri)
        return 0
    if command == "targets":
        ok, atoms = clipboard.wait_for_targets()
        if not ok:
            return 1
        for atom in atoms:
            print(atom.name())
        return 0
    if command == "copy":
        pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
        if len(pairs) == 1 and pairs[0][0] == "text":
            with open(pairs[0][1], "rb") as f:
                clipboard.set_text(f.read().decode("utf-8"), -1)
            print("ready", flush=True)
            run_main()
            return 0
        widget = Gtk.Invisible()
        payloads = {}
        for index, (target, path) in enumerate(pairs):
            with open(path, "rb") as f:
                payloads[index] = (Gdk.Atom.intern(target, False), f.read())
            Gtk.selection_add_target(widget, CLIPBOARD, Gdk.Atom.intern(target, False), index)

        def get(widget, selection_data, info, time):
            atom, data = payloads[info]
            selection_data.set(atom, 8, data)

        widget.connect("selection-get", get)
        widget.connect("selection-clear-event", lambda *a: Gtk.main_quit())
        if not Gtk.selection_owner_set(widget, CLIPBOARD, Gdk.CURRENT_TIME):
            return 2
        print("ready", flush=True)
        run_main()
        return 0
    if command == "own":
        widget = Gtk.Invisible()
        selection = Gdk.Atom.intern(sys.argv[2], False)
        Gtk.selection_add_target(widget, selection, Gdk.Atom.intern("TARGETS", False), 0)
        widget.connect("selection-clear-event", lambda *a: Gtk.main_quit())
        if not Gtk.selection_owner_set(widget, selection, Gdk.CURRENT_TIME):
            return 2
        print("ready", flush=True)
        run_main()
        print("lost", flush=True)
        return 0
    if command == "copy-stall":
        import time
        widget = Gtk.Invisible()
        selection = Gdk.Atom.intern(sys.argv[3], False) if len(sys.argv) > 3 else CLIPBOARD
        Gtk.selection_add_target(widget, selection, Gdk.Atom.intern(sys.argv[2], False), 0)

        def stall(widget, selection_data, info, time_):
            print("asked", flush=True)
            time.sleep(60)

        widget.connect("selection-get", stall)
        if not Gtk.selection_owner_set(widget, selection, Gdk.CURRENT_TIME):
            return 2
        print("ready", flush=True)
        run_main()
        return 0
    if command == "copy-store":
        pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
        if len(pairs) == 1 and pairs[0][0] == "text":
            with open(pairs[0][1], "rb") as f:
                clipboard.set_text(f.read().decode("utf-8"), -1)
        else:
            widget = Gtk.Invisible()
            payloads = {}
            for index, (target, path) in enumerate(pairs):
                with open(path, "rb") as f:
                    payloads[index] = (Gdk.Atom.intern(target, False), f.read())
                Gtk.selection_add_target(widget, CLIPBOARD, Gdk.Atom.intern(target, False), index)

            def get(widget, selection_data, info, time):
                atom, data = payloads[info]
                selection_data.set(atom, 8, data)

            widget.connect("selection-get", get)
            if not Gtk.selection_owner_set(widget, CLIPBOARD, Gdk.CURRENT_TIME):
                return 2
            clipboard.set_can_store([Gtk.TargetEntry.new(t, 0, i) for i, (t, _) in enumerate(pairs)])
        # Let the main loop settle the ownership, then store as gtk_main_quit would.
        GLib.timeout_add(100, Gtk.main_quit)
        Gtk.main()
        clipboard.store()
        print("stored", flush=True)
        return 0
    if command == "copy-store-stall":
        import time
        target, path = sys.argv[2], sys.argv[3]
        with open(path, "rb") as f:
            payload = f.read()
        widget = Gtk.Invisible()
        atom = Gdk.Atom.intern(target, False)
        Gtk.selection_add_target(widget, CLIPBOARD, atom, 0)
        storing = [False]

        def get(widget, selection_data, info, time_):
            if storing[0]:
                print("asked", flush=True)
                time.sleep(60)
            selection_data.set(atom, 8, payload)

        widget.connect("selection-get", get)
        if not Gtk.selection_owner_set(widget, CLIPBOARD, Gdk.CURRENT_TIME):
            return 2
        clipboard.set_can_store([Gtk.TargetEntry.new(target, 0, 0)])

        def quit():
            # GTK stores its clipboards when the outermost main loop ends: stall from then on.
            storing[0] = True
            Gtk.main_quit()
            return False

        GLib.timeout_add(300, quit)
        Gtk.main()
        return 0
    if command == "copy-many":
        count, target, path = int(sys.argv[2]), sys.argv[3], sys.argv[4]
        with open(path, "rb") as f:
            payload = f.read()
        widget = Gtk.Invisible()
        names = ["x-pbctl-private/%d" % n for n in range(count)] + [target]
        entries = [Gtk.TargetEntry.new(name, 0, index) for index, name in enumerate(names)]
        Gtk.selection_add_targets(widget, CLIPBOARD, entries)

        def get(widget, selection_data, info, time):
            if info == count:
                selection_data.set(Gdk.Atom.intern(target, False), 8, payload)
            else:
                selection_data.set(selection_data.get_target(), 8, b"p%d" % (info % 10))

        widget.connect("selection-get", get)
        widget.connect("selection-clear-event", lambda *a: Gtk.main_quit())
        if not Gtk.selection_owner_set(widget, CLIPBOARD, Gdk.CURRENT_TIME):
            return 2
        print("ready", flush=True)
        run_main()
        return 0
    if command == "copy-image":
        pixbuf = GdkPixbuf.Pixbuf.new(GdkPixbuf.Colorspace.RGB, False, 8, int(sys.argv[2]), int(sys.argv[3]))
        pixbuf.fill(0x3366CCFF)
        clipboard.set_image(pixbuf)
        print("ready", flush=True)
        run_main()
        return 0
    return 64


def run_main():
    # The tests kill the peer when done; never outlive a forgotten test by more than a minute.
    GLib.timeout_add_seconds(60, Gtk.main_quit)
    Gtk.main()


if __name__ == "__main__":
    sys.exit(main())
