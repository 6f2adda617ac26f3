// swift-tools-version:6.0
import PackageDescription

// No package dependencies: Foundation and the system C libraries only (see ARCHITECTURE.md).
let package = Package(
    name: "pbctl",
    products: [
        .executable(name: "pbctl", targets: ["pbctl"]),
        .library(name: "Pasteboard", targets: ["Pasteboard"]),
        .library(name: "Representations", targets: ["Representations"]),
        .library(name: "Markdown", targets: ["Markdown"]),
    ],
    targets: [
        // The pure model: type identifiers, items, negotiation, the backend protocol and its capabilities,
        // the in-memory and mirrored backends, the metadata JSON codec. No I/O.
        .target(name: "Pasteboard"),
        // What every reader of outside bytes shares, and nothing else of this package: `ProgressCheck` (in
        // debug and fuzz builds, a reader's main loop consumed input on every pass) and the one
        // scalar-to-UTF-8 encoder. A leaf, so the Markdown engine needs no more of the package than it.
        .target(name: "ReaderSupport"),
        // The file-backed store: the default backend when there is no display. Does file I/O, so it is
        // kept out of the pure model.
        .target(name: "PasteboardStore", dependencies: ["Pasteboard", "SystemIO", "CSystem"]),
        // The clipboard history: one SQLite database beside content-named files (through the store's
        // private folders and files), search, export/import, repair; its SQL lives here alone.
        // Its OpenSSLSHA256.swift (the key of a small picture's thumbnail, older histories' file names) is,
        // beside KDEConnect/Connection, the only code that imports COpenSSL.
        .target(name: "History", dependencies: ["Pasteboard", "PasteboardStore", "SystemIO", "CSystem", "CSQLite", "COpenSSL"]),
        .testTarget(name: "HistoryTests", dependencies: ["History", "PasteboardStore", "Pasteboard", "SystemIO"]),
        // SQLite (the history's database: WAL, FTS5 with the trigram tokenizer), Debian's libsqlite3-dev;
        // linked statically in the release build. Holds no Swift; only History/Database imports it.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The system calls the store and the CLI share (whole reads and writes, EPIPE, errno as errors):
        // what lets the CLI print without importing the store.
        .target(name: "SystemIO", dependencies: ["Pasteboard", "CSystem"]),
        // The CommonMark 0.31.2 + GFM engine: block and inline parsers, the document (AST) and its builder, the
        // HTML writer. A library of its own, as cmark is to its users: nothing of the package but ReaderSupport.
        .target(name: "Markdown", dependencies: ["ReaderSupport"]),
        .testTarget(name: "MarkdownTests", dependencies: ["Markdown"]),
        .testTarget(name: "SpecConformanceTests", dependencies: ["Markdown"], exclude: ["Specs"]),
        // Conversions between formats: the HTML and RTF readers into the Markdown document, the RTF, plain-text
        // and Markdown writers out of it, TextBundles, image conversions, what a copy offers.
        .target(name: "Representations", dependencies: ["Pasteboard", "Images", "ReaderSupport", "Markdown"]),
        // libxcb + xcb-xfixes headers; holds no Swift.
        .systemLibrary(
            name: "CX11",
            pkgConfig: "xcb xcb-xfixes",
            providers: [.apt(["libxcb1-dev", "libxcb-xfixes0-dev"])]
        ),
        // The C library's declarations Swift's Glibc module lacks (xattr, memfd_create, mallopt); headers only.
        .systemLibrary(name: "CSystem"),
        // Detached child processes (fork or spawn, stdio detached, a readiness report): the background
        // selection owner, the detached daemon, the store's holder of sensitive content.
        .target(name: "DetachedProcess", dependencies: ["Pasteboard", "CSystem", "SystemIO"]),
        // The X11 selection bridge: the only Swift code that imports CX11.
        .target(name: "PasteboardX11", dependencies: ["Pasteboard", "CX11", "CSystem", "DetachedProcess", "SystemIO", "ReaderSupport"]),
        // The Wayland clipboard through data-control (ext or wlr), the wire protocol spoken in Swift (no Wayland
        // client library), so the release binary stays static.
        .target(name: "PasteboardWayland", dependencies: ["Pasteboard", "DetachedProcess", "SystemIO"]),
        .testTarget(name: "PasteboardWaylandTests", dependencies: ["PasteboardWayland", "Pasteboard", "SystemIO"], exclude: ["Protocol/XML"]),
        // The terminal's clipboard (OSC 52, kitty's OSC 5522, multiplexer passthrough) over /dev/tty: for SSH sessions.
        .target(name: "PasteboardTerminal", dependencies: ["Pasteboard", "SystemIO"]),
        // zlib headers (raw deflate for ZIP archives); holds no Swift.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // ZIP archives (stored and deflate) read and written in memory: the only Swift code that imports CZlib.
        .target(name: "Archive", dependencies: ["CZlib"]),
        // The protocol `pbctl ssh` speaks over its forwarded socket: pure encoder and decoder.
        .target(name: "RemoteProtocol", dependencies: ["Pasteboard"]),
        // The local clipboard across SSH: the remote client backend, the local server, the ssh session.
        .target(name: "PasteboardRemote", dependencies: ["Pasteboard", "RemoteProtocol", "SystemIO", "CSystem"]),
        .testTarget(name: "PasteboardRemoteTests", dependencies: ["PasteboardRemote", "RemoteProtocol", "Pasteboard", "SystemIO"]),
        // libpng, libjpeg-turbo and libwebp behind C functions that catch the libraries' longjmp inside C
        // and return a status code: no longjmp ever crosses a Swift frame. libdeflate inflates the IDAT
        // data of common PNGs (zlib's inflate is most of a PNG's decoding time). Linked from the Debian -dev
        // packages' static archives in the release build (-static-executable), their shared objects
        // otherwise; the order is what a static link needs (users before the libraries they use).
        .target(
            name: "CImage",
            linkerSettings: [
                .linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("webpmux"), .linkedLibrary("webpdemux"),
                .linkedLibrary("webp"), .linkedLibrary("deflate"), .linkedLibrary("z"), .linkedLibrary("m"),
            ]),
        // Image codecs: PNG, JPEG and WebP through CImage, BMP, GIF and TIFF in Swift; decoded to RGBA,
        // encoded from it, the pixel cap checked before any pixel is allocated. The only Swift code
        // that imports CImage; no file I/O.
        .target(name: "Images", dependencies: ["Pasteboard", "CImage"]),
        // OpenSSL behind a few C functions with status codes (device identities, SHA-256, TLS over a
        // non-blocking socket), linked from libssl-dev's static archives in the release build.
        .target(name: "COpenSSL", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // pbctl as a KDE Connect device: Protocol/ is pure (packets, identities, the link handshake,
        // discovery, the device table, pairing, the clipboard channel, the control server, pbctl's own
        // extension), Connection/ does the I/O (UDP discovery, TCP links, TLS, the state folder, the
        // control socket, spools) and is, beside the history's OpenSSLSHA256.swift, the only code that imports
        // COpenSSL; the service between them
        // drives the parts for `pbctl daemon --kdeconnect`.
        .target(name: "KDEConnect", dependencies: ["Pasteboard", "COpenSSL", "SystemIO", "CSystem"]),
        .testTarget(name: "KDEConnectTests", dependencies: ["KDEConnect", "Pasteboard"]),
        .testTarget(name: "ImagesTests", dependencies: ["Images", "Pasteboard"], exclude: ["Fixtures"]),
        // Files on the clipboard put in a folder (`paste --files --into`): every source and destination
        // checked first, then all or nothing.
        .target(name: "Files", dependencies: ["Pasteboard", "SystemIO"]),
        .testTarget(name: "FilesTests", dependencies: ["Files", "SystemIO", "Pasteboard"]),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO", "Pasteboard"]),
        // Documents on disk: TextBundle folders and archives read and written, a Markdown file's images
        // offered as a TextBundle, provenance in user.x-document-source.
        .target(name: "Documents", dependencies: ["Pasteboard", "Representations", "Archive", "PasteboardStore", "SystemIO"]),
        .testTarget(name: "DocumentsTests", dependencies: ["Documents", "Pasteboard"]),
        // What a copy makes of its sources, how it is committed (written, then recorded where no daemon
        // records it) and what a paste delivers: the one policy `pbctl copy`/`paste`, `history copy`,
        // pbcopy/pbpaste, `pbctl ssh` and the xclip/xsel/wl-clipboard personalities share.
        .target(name: "CopyPaste", dependencies: ["Pasteboard", "SystemIO", "Representations", "Documents", "History", "HistoryText"]),
        .testTarget(name: "CopyPasteTests", dependencies: ["CopyPaste", "Pasteboard", "History", "Representations"]),
        // What the history shows and searches of an item: its one-line preview and every text it holds
        // (HTML and RTF as the text they show), beside the history, which takes them as functions.
        .target(name: "HistoryText", dependencies: ["Pasteboard", "Representations", "Images"]),
        // The clipboard manager (`pbctl daemon`) composed: one run path for every keeper (X11, Wayland,
        // the store), its inbox (the way in: only the newest counts), the history recorder, the peers
        // (KDE Connect) feeding the keeper in process and told only of what did not come from them.
        .target(
            name: "ClipboardManager",
            dependencies: ["Pasteboard", "History", "Representations", "HistoryText", "SystemIO", "KDEConnect"]),
        // Unit tests of the daemon over test doubles (a keeper on the in-memory pasteboard, peers that
        // remember what they hear), as swift-nio's NIOEmbedded drives a channel without sockets.
        .testTarget(name: "ClipboardManagerTests", dependencies: ["ClipboardManager", "Pasteboard", "PasteboardStore", "History"]),
        // `pbctl ssh` composed: this machine's clipboard served to a remote pbctl for one session (what
        // it copies completed and attributed here, recorded where no daemon records it).
        .target(
            name: "RemoteSharing", dependencies: ["Pasteboard", "PasteboardRemote", "History", "Representations", "CopyPaste"]),
        // The composition root: which backend an invocation uses and why; the only code that names the
        // concrete backends.
        .target(
            name: "Backends",
            dependencies: [
                "Pasteboard", "PasteboardStore", "PasteboardTerminal", "PasteboardWayland", "PasteboardX11", "PasteboardRemote", "Representations",
                "History", "HistoryText", "SystemIO",
            ]),
        // How xclip, xsel, wl-copy and wl-paste read their command lines and word their help, version and
        // usage errors, for pbctl run under their names: pure (arguments in, an invocation or a reply out).
        .target(name: "Personalities"),
        .testTarget(name: "PersonalitiesTests", dependencies: ["Personalities"]),
        // What xclip, xsel, wl-copy and wl-paste do once their command line is read: pbctl's copy policy
        // and commit step (CopyPaste) and paste negotiation behind the tools' words, X11 replies printed
        // as xclip prints them. The command line hands in argv, its streams and its backend chooser.
        .target(
            name: "ToolSessions",
            dependencies: ["Pasteboard", "Personalities", "CopyPaste", "Backends", "Documents", "Representations", "SystemIO"]),
        .testTarget(name: "ToolSessionsTests", dependencies: ["ToolSessions", "Personalities", "CopyPaste", "Backends", "Pasteboard", "History"]),
        .testTarget(name: "HistoryTextTests", dependencies: ["HistoryText", "Pasteboard"]),
        .testTarget(name: "BackendsTests", dependencies: ["Backends", "Pasteboard"]),
        // The command line: parses, calls and prints. Its dependencies are what it may import: no backend
        // module, no transport (those are Backends', ClipboardManager's and RemoteSharing's to compose).
        .executableTarget(
            name: "pbctl",
            dependencies: [
                "Pasteboard", "History", "SystemIO", "Representations", "DetachedProcess", "Files", "Documents", "Backends",
                "ClipboardManager", "RemoteSharing", "HistoryText", "CopyPaste", "CStartup", "Personalities", "ToolSessions",
            ]
        ),
        // The arguments as glibc hands them to constructors: the entry reads them without Swift's
        // CommandLine (its set-up is a cost the quick paste and copy need not pay).
        .target(name: "CStartup"),
        .testTarget(name: "PasteboardTests", dependencies: ["Pasteboard"]),
        .testTarget(name: "PasteboardStoreTests", dependencies: ["PasteboardStore", "Pasteboard", "SystemIO"]),
        .testTarget(name: "RepresentationsTests", dependencies: ["Representations", "Markdown", "Pasteboard", "Images", "ReaderSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "PasteboardX11Tests", dependencies: ["PasteboardX11", "Pasteboard", "SystemIO"]),
        // Runs the built pbctl binary as a user would (no display, and under Xvfb when present).
        .testTarget(name: "pbctlTests", dependencies: ["Pasteboard", "PasteboardWayland"], exclude: ["Fixtures"]),
        .testTarget(name: "ArchiveTests", dependencies: ["Archive"]),
        .testTarget(name: "DetachedProcessTests", dependencies: ["DetachedProcess", "Pasteboard"]),
        .testTarget(name: "PasteboardTerminalTests", dependencies: ["PasteboardTerminal", "Pasteboard"]),
        // Every entry point that takes outside bytes, one function per fuzz target: what the libFuzzer
        // harness runs (`make fuzz`) and what FuzzRegressionTests replays from Tests/Fuzz/regressions.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "Pasteboard", "PasteboardStore", "History", "Representations", "Markdown", "PasteboardX11", "PasteboardWayland", "Archive",
                "RemoteProtocol", "Images", "KDEConnect", "Personalities",
            ]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzTargets"]),
    ]
)

// The libFuzzer harness, only when asked for (`make fuzz` sets PBCTL_FUZZ=1 and builds it with
// `-sanitize=fuzzer,address` into .build-fuzz): libFuzzer supplies its `main`, so a plain build has none to link.
if Context.environment["PBCTL_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "pbctl-fuzz", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/Harness",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    )
}

// In-process benchmark driver used by `make bench` (small documents, where process start-up would dominate),
// and the image conversion the images section times against ImageMagick as a whole process.
// It counts its heap allocations (allocations per KB of Markdown) through the linker's --wrap: every call to
// malloc and its siblings from any object linked into it, the Swift runtime's included, goes through
// Benchmarks/CBenchAlloc first.
package.targets.append(contentsOf: [
    .target(name: "CBenchAlloc", path: "Benchmarks/CBenchAlloc"),
    .executableTarget(
        name: "pbctl-bench", dependencies: ["Representations", "Markdown", "Images", "CBenchAlloc"], path: "Benchmarks/pbctl-bench",
        linkerSettings: [
            .unsafeFlags([
                "-Xlinker", "--wrap=malloc", "-Xlinker", "--wrap=calloc", "-Xlinker", "--wrap=realloc",
                "-Xlinker", "--wrap=posix_memalign", "-Xlinker", "--wrap=aligned_alloc",
            ])
        ]),
])
