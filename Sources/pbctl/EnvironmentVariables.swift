// Every environment variable pbctl reads, with what it means: the one table the manual's ENVIRONMENT
// section is made from. `EnvironmentDocumentationTests` scans the sources for every variable read
// (`environment["NAME"]`, `variable("NAME")`) and fails when one is missing here.

struct EnvironmentVariable: Sendable {
    let name: String
    let meaning: String
}

let environmentVariables: [EnvironmentVariable] = [
    .init(name: "PBCTL_BACKEND", meaning: "the backend when --backend is not given: " + Context.BackendKind.allCases.map(\.rawValue).joined(separator: ", ") + " (default auto)."),
    .init(name: "PBCTL_REMOTE", meaning: "set by pbctl ssh on the remote host: the socket through which pbctl there uses the clipboard of the machine pbctl ssh ran on (auto prefers it when it answers within a second)."),
    .init(name: "PBCTL_STORE", meaning: "the store directory (else $XDG_RUNTIME_DIR/pbctl, $XDG_CACHE_HOME/pbctl or ~/.cache/pbctl)."),
    .init(name: "PBCTL_HISTORY", meaning: "the history directory (else $XDG_STATE_HOME/pbctl/history, or ~/.local/state/pbctl/history)."),
    .init(name: "PBCTL_MAX_SIZE", meaning: "the largest input copy takes, as --max-size (default 1G)."),
    .init(name: "PBCTL_MAX_PIXELS", meaning: "the most pixels an image may have (its declared width × height, checked before it is read: default 100000000); a larger one is refused with exit 65."),
    .init(name: "PBCTL_MAX_IMAGE_MEMORY", meaning: "the most memory one image decode or conversion may take, as a size such as 512M or 2G (default 1G): estimated from the image's declared size and the formats before anything is allocated; more is refused with exit 65."),
    .init(name: "PBCTL_HTML_IMAGES", meaning: "how HTML from a Markdown copy carries local images: data (default, data: URLs), file (file: URLs) or none."),
    .init(name: "PBCTL_TYPES_PATH", meaning: "colon-separated folders of type-declaration property lists (else $XDG_CONFIG_HOME/pbctl/types and /usr/share/pbctl/types)."),
    .init(name: "PBCTL_OSC52_MAX", meaning: "the most text sent to the terminal's clipboard (default 1M); more is refused with exit 65."),
    .init(name: "PBCTL_OSC5522", meaning: "1: send every representation with kitty's OSC 5522; 0: plain OSC 52 (default: 1 when TERM is xterm-kitty)."),
    .init(name: "PBCTL_X11_TIMEOUT", meaning: "seconds an X11 owner or reader may take for each step of a transfer (default 5)."),
    .init(name: "PBCTL_WAYLAND_TIMEOUT", meaning: "seconds each step of a Wayland paste or copy may take (default 5)."),
    .init(name: "PBCTL_X11_LOG", meaning: "a file the detached owners (X11 and Wayland) and the daemon log to (debugging)."),
    .init(name: "PBCTL_SPAWN_OWNER", meaning: "set: a copy hands its content to a freshly started owner process instead of a forked one (testing; PBCTL_X11_SPAWN_OWNER is the old name)."),
    .init(name: "PBCTL_X11_SPAWN_OWNER", meaning: "the old name of PBCTL_SPAWN_OWNER."),
    .init(name: "PBCTL_KDECONNECT_STATE", meaning: "the KDE Connect state folder: the device's key and certificate, the paired devices, the daemon's control socket (else $XDG_STATE_HOME/pbctl/kdeconnect)."),
    .init(name: "WAYLAND_DISPLAY", meaning: "the Wayland compositor (a socket name in $XDG_RUNTIME_DIR, or a path); auto tries it first."),
    .init(name: "DISPLAY", meaning: "the X display; auto uses it when no Wayland compositor with data-control answers."),
    .init(name: "SSH_CONNECTION", meaning: "an SSH session: auto also sends copies to the terminal (OSC 52)."),
    .init(name: "SSH_TTY", meaning: "as SSH_CONNECTION."),
    .init(name: "TMUX", meaning: "inside tmux: copies go through tmux load-buffer (its buffer and the outer terminal); when its server does not answer, OSC 52 goes to the terminal directly."),
    .init(name: "STY", meaning: "inside GNU screen: OSC 52 goes through screen's passthrough."),
    .init(name: "TERM", meaning: "xterm-kitty: every representation goes to the terminal with OSC 5522."),
    .init(name: "XDG_RUNTIME_DIR", meaning: "where the store (and the Wayland daemon's lock) lives, and where a relative WAYLAND_DISPLAY is found."),
    .init(name: "XDG_CACHE_HOME", meaning: "where the store lives without XDG_RUNTIME_DIR."),
    .init(name: "XDG_STATE_HOME", meaning: "where the history (pbctl/history) and the KDE Connect device (pbctl/kdeconnect) live."),
    .init(name: "XDG_CONFIG_HOME", meaning: "where the configuration file (pbctl/config) and type declarations (pbctl/types) live (else ~/.config)."),
    .init(name: "HOME", meaning: "the default for the XDG folders; with neither, pbctl's folders are under /tmp/pbctl-UID."),
    .init(name: "PATH", meaning: "where history pick looks for a launcher (fzf, fuzzel, wofi, rofi, bemenu, dmenu) and history import --from cliphist for cliphist."),
    .init(name: "TMPDIR", meaning: "where the Wayland daemon's lock goes without XDG_RUNTIME_DIR (else /tmp)."),
    .init(name: "PATH", meaning: "where pbctl compat status looks for the programs xclip, xsel, wl-copy and wl-paste run."),
    .init(name: "POSIXLY_CORRECT", meaning: "run as wl-copy or wl-paste: the first operand ends the options, as GNU getopt_long has it."),
]
