#!/usr/bin/env bash
# House rules that grep can check (run by make test):
# - only Sources/KDEConnect/Connection and History/OpenSSLSHA256.swift import COpenSSL; Sources/KDEConnect/Protocol is pure;
# - only Sources/History/Database imports CSQLite;
# - only Sources/PasteboardX11/Connection imports CX11, only Sources/Archive imports CZlib, only
#   Sources/Images imports CImage (the C shim over libpng, libjpeg-turbo and libwebp), and Images does no
#   file I/O;
# - the pure model (Pasteboard) does no file I/O and knows nothing of X11;
# - no package dependencies in Package.swift;
# - no command casts a backend; the CLI's terminal I/O does not import the store;
# - no bare Wayland opcode; in Sources/PasteboardWayland only Connection/ makes the system calls of its
#   I/O, its Protocol/ reads no clock, and no wait is without a deadline but the watch's.
# - no hand-written Swift source file over 1,400 lines.
set -u
cd "$(dirname "$0")/.."
status=0
fail() { echo "check-source: $*" >&2; status=1; }
leaks=$(grep -rlE '^\s*(@_implementationOnly |internal |public )?import CX11' Sources | grep -v '^Sources/PasteboardX11/Connection/')
[ -z "$leaks" ] || fail "CX11 imported outside Sources/PasteboardX11/Connection: $leaks"
leaks=$(grep -rlE '^\s*(@_implementationOnly |internal |public )?import CZlib' Sources | grep -v '^Sources/Archive/')
[ -z "$leaks" ] || fail "CZlib imported outside Sources/Archive: $leaks"
leaks=$(grep -rlE '^\s*(@_implementationOnly |internal |public )?import CImage' Sources | grep -v '^Sources/Images/')
[ -z "$leaks" ] || fail "CImage imported outside Sources/Images: $leaks"
# SQLite (the history's database) is called from one folder: the policy around it stays testable.
leaks=$(grep -rlE '^\s*(@_implementationOnly |internal |public )?import CSQLite' Sources | grep -v '^Sources/History/Database/')
[ -z "$leaks" ] || fail "CSQLite imported outside Sources/History/Database: $leaks"
# KDE Connect: only its Connection/ imports COpenSSL (the C shim over OpenSSL), and beside it the history's
# SHA-256 (History/OpenSSLSHA256.swift: OpenSSL's hashes are never written by hand); its Protocol/ is pure (no C
# library, no system I/O, no clock: times come in as arguments), and outside Connection/ the module makes
# no socket or file system call (the service drives Connection/'s sockets, links and state folder).
leaks=$(grep -rlE '^\s*(@_implementationOnly |internal |public )?import COpenSSL' Sources | grep -v -e '^Sources/KDEConnect/Connection/' -e '^Sources/History/OpenSSLSHA256.swift$')
[ -z "$leaks" ] || fail "COpenSSL imported outside Sources/KDEConnect/Connection and History/OpenSSLSHA256.swift: $leaks"
leaks=$(grep -rlE '^\s*(@_implementationOnly |internal |public )?import CStartup' Sources | grep -v '^Sources/pbctl/main.swift$')
[ -z "$leaks" ] || fail "only pbctl/main.swift imports CStartup: $leaks"
leaks=$(grep -rlE '^\s*import (Glibc|CSystem|COpenSSL|SystemIO|Dispatch)\b|MonotonicClock|Date\(\)|clock_gettime|gettimeofday' Sources/KDEConnect/Protocol)
[ -z "$leaks" ] || fail "Sources/KDEConnect/Protocol does I/O or reads the clock: $leaks"
leaks=$(grep -rnE "(^|[^.[:alnum:]_]|Glibc\.)(read|write|recv|recvfrom|send|sendto|poll|socket|bind|listen|accept4?|connect|setsockopt|open|unlink|rename|fsync|mmap|close)\(" Sources/KDEConnect --include='*.swift' \
    | grep -vE '^Sources/KDEConnect/Connection/' | grep -vE '^[^:]+:[0-9]+:\s*//' | grep -vE "\b(func|case) +[a-z]+\(" | grep -vE "\.(read|write|send|close|connect|open|accept|receive)\(" \
    | grep -vE "\b[a-z]+\([^)]*\b[a-z][A-Za-z]*: ")
[ -z "$leaks" ] || fail "KDE Connect I/O outside Sources/KDEConnect/Connection (move it there): $leaks"
leaks=$(grep -rlE '^\s*import (Glibc|SystemIO|PasteboardStore)|\bopen\(|fopen\(|Data\(contentsOf:|FileManager' Sources/Images)
[ -z "$leaks" ] || fail "the image codecs do file I/O (bytes in, bytes out): $leaks"
# The tools' command lines (xclip, xsel, wl-copy, wl-paste) are read by pure code: no module at all.
leaks=$(grep -rlE '^\s*(@_implementationOnly |internal |public )?import ' Sources/Personalities)
[ -z "$leaks" ] || fail "Sources/Personalities imports a module (it is pure: arguments in, an invocation or a reply out): $leaks"
leaks=$(grep -rlE '^\s*import (Glibc|PasteboardX11|PasteboardStore)|xcb_|\bopen\(|fopen\(' Sources/Pasteboard)
[ -z "$leaks" ] || fail "the pure model does I/O or touches X11: $leaks"
# Commands talk to backends through PasteboardBackend and its capabilities only (a new backend
# touches no command): no cast to a concrete backend.
leaks=$(grep -rnE '\b(as[?!]?|is) +(any +)?[A-Z][A-Za-z]*(Backend|Pasteboard|Store|InputSpooling|StoredFiles|PasteboardWatching)\b' Sources/pbctl)
[ -z "$leaks" ] || fail "a command casts a backend (ask for a capability: backend.spooling, .storedFiles, .watching): $leaks"
# The CLI parses, calls and prints: no system call of its own (they live in SystemIO, the store,
# DetachedProcess, Files, Documents and the backends).
leaks=$(grep -rnE '(^|[^.[:alnum:]_])(open|openat|creat|pipe|pipe2|poll|select|fcntl|flock|lstat|fstatat|fstat|posix_spawnp?|fork|execve?|ioctl|pread|pwrite|read|write|ftruncate|waitpid|splice|sendfile|mmap|mkdir|mkdirat|rmdir|rename|renameat|link|linkat|symlink|readlink|unlink|unlinkat|chdir|chmod|fchmod|kill|dup2?|socket|connect|bind|listen|accept|shutdown|signal|sigaction|clock_gettime|getcwd|setsid)\(' Sources/pbctl | grep -vE '^[^:]+:[0-9]+:\s*//')
[ -z "$leaks" ] || fail "the CLI makes system calls (move them to the module that owns the work): $leaks"
# No command or support file names a concrete backend, connection or owner type, nor imports a backend
# module: they are reached through Backends (the composition root) and the backend capabilities.
leaks=$(grep -rnwE 'X11Backend|WaylandBackend|FileStore|TerminalClipboardBackend|MirroredPasteboard|InMemoryPasteboard|XConnection|WaylandConnection|X11SelectionOwner|WaylandSelectionOwner|X11SelectionReader|X11SelectionWatcher|X11ClipboardManager|WaylandClipboardManager|HeldItems|DataControlClient' Sources/pbctl | grep -vE '^[^:]+:[0-9]+:\s*//')
[ -z "$leaks" ] || fail "the CLI names a concrete backend, connection or owner type: $leaks"
# (That it imports no backend or transport module is the manifest's to say: pbctl does not depend on them.)
# One file per command: each `Command(` value in a file of its own under Commands/.
leaks=$(grep -lE '^let [A-Za-z]+Command = Command\(' Sources/pbctl/Commands/*.swift | while read -r f; do n=$(grep -cE '^let [A-Za-z]+Command = (Command\(|serveCommand\()' "$f"); [ "$n" -gt 1 ] && echo "$f"; done)
[ -z "$leaks" ] || fail "more than one command in a file: $leaks"
# Hidden commands parse through option specs as every other does: no hand-written argv loop.
leaks=$(grep -rnE 'raw: *\{|while index < arguments\.count' Sources/pbctl/Commands)
[ -z "$leaks" ] || fail "a command parses its arguments by hand: $leaks"
# Wayland opcodes are named (Sources/PasteboardWayland/Protocol/Opcodes.swift; OpcodeTableTests holds
# the names to the protocol XML): no bare number in the module.
leaks=$(grep -rnE 'opcode: *[0-9]' Sources/PasteboardWayland)
[ -z "$leaks" ] || fail "a bare Wayland opcode (name it in Protocol/Opcodes.swift): $leaks"
# The Wayland backend is structured as X11's is: Connection/ does every read, write, poll and splice
# (the socket, the pipes); Protocol/ and the drivers decide and call it. A system call of that I/O
# elsewhere in the module fails (a declaration such as `func write(` or a method call with labelled
# arguments is no system call).
calls='read|write|poll|ioctl|fcntl|splice|tee|pipe|pipe2|socket|socketpair|connect|sendmsg|recvmsg|open|openat|flock|kill|usleep|nanosleep|clock_gettime'
leaks=$(grep -rnE "(^|[^.[:alnum:]_]|Glibc\.)($calls)\(" Sources/PasteboardWayland --include='*.swift' \
    | grep -v '^Sources/PasteboardWayland/Connection/' \
    | grep -vE '^[^:]+:[0-9]+:\s*//' \
    | grep -vE "\b(func|case) +($calls)\(" \
    | grep -vE "\b($calls)\([^)]*\b[a-z][A-Za-z]*: ")
[ -z "$leaks" ] || fail "Wayland I/O outside Sources/PasteboardWayland/Connection (move it there): $leaks"
# Its Protocol/ is pure: no C library, no clock (the time comes in as an argument).
leaks=$(grep -rlE '^\s*import (Glibc|CSystem)|waylandNow\(|clock_gettime' Sources/PasteboardWayland/Protocol)
[ -z "$leaks" ] || fail "Sources/PasteboardWayland/Protocol does I/O or reads the clock: $leaks"
# Every Wayland wait has a deadline but the watch's, which waits for events by design.
leaks=$(grep -rn 'deadline: nil' Sources/PasteboardWayland | grep -v '^Sources/PasteboardWayland/WaylandBackend.swift:.*nextEvent(deadline: nil)')
[ -z "$leaks" ] || fail "a Wayland wait without a deadline (only watch may): $leaks"
# The CLI prints through SystemIO, not the store.
grep -q '^import PasteboardStore' Sources/pbctl/Terminal.swift && fail "Terminal.swift imports the store"
grep -Eq '\.package\(' Package.swift && fail "Package.swift names a package dependency"
# No hand-written Swift file over 1,400 lines (cmark's largest, inlines.c, is 1,505): one that grows past it is
# split by concern, as InlineParser+… and BlockParser+… are. Generated tables (first line "// Generated by" or
# "// GENERATED by") are exempt.
leaks=$(find Sources Benchmarks -name '*.swift' | sort | while read -r f; do
    head -1 "$f" | grep -qiE '^// generated by' && continue
    n=$(wc -l < "$f"); [ "$n" -gt 1400 ] && echo "$f ($n lines)"; done)
[ -z "$leaks" ] || fail "a source file over 1,400 lines (split it by concern): $leaks"
# The manifest's dependency lists are the allowed imports, and say no more than the code imports
# (scripts/check-imports.py reads them from `swift package dump-package`).
scripts/check-imports.py >&2 || fail "imports and Package.swift disagree (above)"
[ $status -eq 0 ] && echo "check-source: ok"
exit $status
