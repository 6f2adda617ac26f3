// What the manual says of pbctl run as xclip, xsel, wl-copy and wl-paste (README: "As xclip, xsel,
// wl-copy and wl-paste" says the same at more length): one list, so the differences pbctl keeps are
// written once here and once in the README, and scripts/compat_cases.py marks each with `differs`.

/// The differences from the real tools pbctl keeps on purpose, each with why.
let personalityDifferences: [String] = [
    "xclip's background owner keeps the caller's standard output open, so out=$(… | xclip) waits until the selection is taken; pbctl's owner holds none of the caller's streams and the copy returns at once.",
    "A target the owner does not list and answers with bytes of another type (xclip's owner answers every target with its one) is made by pbctl's negotiation when it can be: xclip -t text/html -o of an xclip text copy gives HTML made of the text. A type wl-paste --type names, or the file standard output goes to (> shot.jpg), that is not offered is made the same way instead of No suitable type of content copied.",
    "A copy offers what pbctl copy offers: an image every image format (and HTML and RTF carrying it), Markdown also HTML, RTF and plain text, so TARGETS and --list-types list more than the tools' few names; the plain text of an HTML or RTF copy is the rendered text. An image copied without -t is offered as the image, not as UTF8_STRING, and wl-paste with no type gives such a copy's image (an image pastes as itself), where the real wl-paste would take the HTML carrying it.",
    "Text that is not UTF-8 (Latin-1) given with no target, -t STRING, TEXT or --type text/plain is kept byte for byte as Latin-1 text, served as it is under STRING, TEXT and text/plain (on Wayland also text/plain;charset=iso-8859-1) but not under UTF8_STRING or text/plain;charset=utf-8: the tools' readers fall back to STRING and get the bytes back, and pbctl paste gives it as UTF-8. Given with a UTF-8 target (-t UTF8_STRING, --type text/plain;charset=utf-8) it is refused (exit 1); an image target given bytes that are no image is refused too.",
    "STRING is Latin-1 (ICCCM): pbctl's owner serves text outside Latin-1 under STRING with each character outside it written as GTK 3 writes it (\\u2713, \\U0001f600); xclip's owner answers STRING with its UTF-8 bytes.",
    "xsel's daemon takes the selection after its parent has exited, so a read at once may find nothing; pbctl's owner holds the selection before the copy returns.",
    "pbctl's paste-once owner on Wayland (wl-copy -o) keeps the selection 250 ms after its one paste, so its reader can tell a whole transfer; another program's paste in that time reads nothing instead of finding no selection (pbctl's wl-paste says No selection, exit 1, as after).",
    "On Wayland, xclip -loops N serves one paste when N is 1 and until replaced otherwise (X11 counts N exactly); on the store and over pbctl ssh there is no owner to count, and -quiet, --nodetach and --foreground return at once.",
    "wl-paste --list-types of pbctl's own owner lists text under pbctl's order of names (text/plain;charset=utf-8 first).",
    "--seat (wl-copy, wl-paste), xsel's --logfile and --verbose are accepted and change nothing; xsel -t applies to the owner's lifetime, reads keep pbctl's per-step deadline (PBCTL_X11_TIMEOUT).",
    "xsel -f and -z stay in the foreground until the input ends, offering the content anew as it grows; xsel returns at once and follows in the background.",
    "SECONDARY (xclip -selection secondary, xsel -s) and xclip's cut buffer live in pbctl's store where the display has none (Wayland).",
    "Every failure exits 1, as the tools do (pbctl's own codes 64 to 74 are not used under these names); 141 when standard output's reader went away.",
]

/// The manual's section on the personalities.
func personalityManual() -> String {
    var section = """
        .SH XCLIP XSEL WL\\-COPY AND WL\\-PASTE
        Run under the name
        .BR xclip ", " xsel ", " wl\\-copy " or " wl\\-paste
        (a symbolic link), pbctl reads that tool's command line as it does (xclip 0.13, xsel 1.2.0,
        wl\\-clipboard 2.1.0: every option, xclip's abbreviations such as
        .BR "\\-sel c" ,
        xsel's combined flags such as
        .BR \\-bo ,
        GNU long options) and answers with the tool's output, messages and exit status, on pbctl's
        backend: X11 on the display
        .B \\-display
        or
        .B \\-\\-display
        names, else pbctl's choice (Wayland, X11, the store with no display, this machine's clipboard
        over
        .BR "pbctl ssh" ,
        the terminal's over SSH). Against an X11 or Wayland owner it asks by name as the tool does, so
        .BR "xclip \\-t TARGETS \\-o" ,
        .B wl\\-paste \\-\\-list\\-types
        and what each prints when nothing is owned are the tool's. A target or type the owner lacks is
        made by pbctl's negotiation (HTML or RTF of Markdown, any image format of any image).
        .B pbctl compat install
        makes the links in a folder of pbctl's own;
        .B make install
        and the Debian package put them in
        .IR PREFIX/lib/pbctl/compat .
        The system's tools stay as they are: the folder goes first in PATH for what should use pbctl.
        .PP
        Differences pbctl keeps:

        """
    for difference in personalityDifferences { section += ".IP \\(bu 2\n" + roff(difference) + "\n" }
    return section
}
