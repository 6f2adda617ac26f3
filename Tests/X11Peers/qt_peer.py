#!/usr/bin/python3
"""Qt 5 clipboard peer for pbctl's X11 integration tests (run with QT_QPA_PLATFORM=xcb).

  qt_peer.py paste MIME        write QClipboard mimeData().data(MIME) to stdout (exit 1 when absent)
  qt_peer.py text              write QClipboard.text() to stdout
  qt_peer.py formats           print mimeData().formats(), one per line
  qt_peer.py copy MIME FILE [MIME FILE...]
                               own CLIPBOARD with these formats ('text' = setText); print 'ready';
                               exit when another client takes the selection
  qt_peer.py copy-image W H    own CLIPBOARD with a W×H image (setImageData)
  qt_peer.py copy-urls PATH... own CLIPBOARD with these files (QMimeData.setUrls, as Dolphin does)
  qt_peer.py urls              print mimeData().urls() as local paths, one per line
  qt_peer.py copy-exit MIME FILE [MIME FILE...]
                               own CLIPBOARD like copy, then quit at once: Qt's clipboard hands the
                               content to the clipboard manager when the application is destroyed
                               (SAVE_TARGETS); print 'exited' after that
"""
import sys
from PyQt5.QtCore import QMimeData, QTimer, QUrl
from PyQt5.QtGui import QImage
from PyQt5.QtWidgets import QApplication


def main():
    app = QApplication(sys.argv[:1])
    clipboard = app.clipboard()
    command = sys.argv[1]
    if command == "image":
        # QClipboard.image(): Qt picks the image format it prefers among those offered, and decodes it.
        image = clipboard.image()
        if image.isNull():
            return 1
        image.save(sys.argv[2], "PNG")
        print(image.width(), image.height())
        return 0
    if command == "urls":
        data = clipboard.mimeData()
        if not data.hasUrls():
            return 1
        for url in data.urls():
            print(url.toLocalFile() if url.isLocalFile() else url.toString())
        return 0
    if command in ("paste", "text", "formats"):
        data = clipboard.mimeData()
        if command == "formats":
            for name in data.formats():
                print(name)
            return 0
        if command == "text":
            if not data.hasText():
                return 1
            sys.stdout.buffer.write(data.text().encode("utf-8"))
            return 0
        if not data.hasFormat(sys.argv[2]):
            return 1
        sys.stdout.buffer.write(bytes(data.data(sys.argv[2])))
        return 0
    if command == "copy-exit":
        mime = QMimeData()
        for name, path in zip(sys.argv[2::2], sys.argv[3::2]):
            with open(path, "rb") as f:
                payload = f.read()
            if name == "text":
                mime.setText(payload.decode("utf-8"))
            else:
                mime.setData(name, payload)
        clipboard.setMimeData(mime)
        QTimer.singleShot(100, app.quit)
        app.exec_()
        # Destroying the application destroys the xcb clipboard, which asks the manager to save.
        try:
            from PyQt5 import sip
        except ImportError:
            import sip
        sip.delete(app)
        print("exited", flush=True)
        return 0
    if command in ("copy", "copy-image", "copy-urls"):
        mime = QMimeData()
        if command == "copy-urls":
            mime.setUrls([QUrl.fromLocalFile(path) for path in sys.argv[2:]])
        elif command == "copy-image":
            image = QImage(int(sys.argv[2]), int(sys.argv[3]), QImage.Format_RGB32)
            image.fill(0x3366CC)
            mime.setImageData(image)
        else:
            for name, path in zip(sys.argv[2::2], sys.argv[3::2]):
                with open(path, "rb") as f:
                    payload = f.read()
                if name == "text":
                    mime.setText(payload.decode("utf-8"))
                else:
                    mime.setData(name, payload)
        clipboard.setMimeData(mime)
        state = {"owned": False}

        def changed():
            if clipboard.ownsClipboard():
                state["owned"] = True
            elif state["owned"]:
                QTimer.singleShot(100, app.quit)

        clipboard.dataChanged.connect(changed)
        if clipboard.ownsClipboard():
            state["owned"] = True
        print("ready", flush=True)
        return app.exec_()
    return 64


if __name__ == "__main__":
    sys.exit(main())
