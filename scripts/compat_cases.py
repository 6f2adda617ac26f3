"""The argument vectors of scripts/compat-differential.py: the callers' (callers.md: Neovim, Helix, tmux,
pass, pyperclip, lazygit, Emacs, image paste, screenshot pipelines) and the tools' edge cases (nothing
owned, abbreviations, combined flags, usage errors, versions, large transfers, odd bytes).

In setups and reads, tools are named by their path (/usr/bin/xclip): the real programs, whoever runs the
vector; $PBCTL is pbctl itself."""
XCLIP, XSEL, WLCOPY, WLPASTE = "/usr/bin/xclip", "/usr/bin/xsel", "/usr/bin/wl-copy", "/usr/bin/wl-paste"

# Readers of what a copy left, by other programs.
X_READ_C = [XCLIP + " -o -sel c", XSEL + " -o -b"]
X_READ_P = [XCLIP + " -o", XSEL + " -o -p"]
X_TARGETS_C = "superset:" + XCLIP + " -o -sel c -t TARGETS"
W_READ = [WLPASTE + " -n", WLPASTE + " -t text/plain", "superset:" + WLPASTE + " -l"]
W_READ_P = [WLPASTE + " -n -p", "superset:" + WLPASTE + " -l -p"]

# Content put there by the real tools.
X_TEXT_C = "printf 'hello\\n' | " + XCLIP + " -sel c"
X_TEXT_P = "printf 'primary text' | " + XCLIP
X_TEXT_S = "printf 'second' | " + XCLIP + " -sel s"
X_UTF8_C = "printf 'h\\xc3\\xa9llo w\\xc3\\xb6rld' | " + XSEL + " -b -i"
X_PNG_C = XCLIP + " -sel c -t image/png red.png"
X_MD_C = XCLIP + " -sel c -t text/markdown notes.md"
X_BIG_C = XCLIP + " -sel c big.txt"
X_NUL_C = "printf 'a\\000b' | " + XCLIP + " -sel c"
W_TEXT = "printf 'hello' | " + WLCOPY
W_TEXT_NL = "printf 'hi\\n' | " + WLCOPY
W_TEXT_P = WLCOPY + " -p prim"
W_PNG = WLCOPY + " < red.png"
W_MD = WLCOPY + " < notes.md"
W_BIG = WLCOPY + " < big.txt"

TEXT_IN = b"copied text\n"


def cases(png, markdown, big):
    import sys

    C = sys.modules["__main__"].Case

    def x(name, argv, **kw):
        return C(name, "x11", argv=argv.split() if isinstance(argv, str) else argv, **kw)

    def w(name, argv, **kw):
        return C(name, "wayland", argv=argv.split() if isinstance(argv, str) else argv, **kw)

    out = []
    add = out.append

    # ---- xclip: help, version, usage ----------------------------------------------------------------
    for argv in ["xclip -h", "xclip -help", "xclip -version", "xclip -vers", "xclip -o -h", "xclip -h -version",
                 "xclip -version -help"]:
        add(x("usage: " + argv, argv))
    for argv in ["xclip -s", "xclip -v", "xclip --help", "xclip -", "xclip -sel", "xclip -selectionx c", "xclip nonexistent-file"]:
        add(x("file operand: " + argv, argv, stdin=TEXT_IN))

    # ---- xclip: pasting ---------------------------------------------------------------------------------
    for argv in ["xclip -o", "xclip -o -selection clipboard", "xclip -selection clipboard -t TARGETS -o",
                 "xclip -sel c -t image/png -o", "xclip -o -selection primary", "xclip -o -sel secondary", "xclip -o -sel c -r"]:
        add(x("nothing owned: " + argv, argv))
    add(x("neovim paste (xclip owner)", "xclip -o -selection clipboard", setup=[X_TEXT_C]))
    add(x("helix paste primary", "xclip -o", setup=[X_TEXT_P]))
    add(x("pyperclip paste", "xclip -selection c -o", setup=[X_TEXT_C]))
    add(x("lazygit paste", "xclip -out -selection clipboard", setup=[X_TEXT_C]))
    add(x("pass paste (-o -selection)", "xclip -o -selection clipboard", setup=[X_UTF8_C]))
    add(x("tmux paste -sel c", "xclip -o -sel c", setup=[X_TEXT_C]))
    add(x("emacs paste secondary", "xclip -o -selection secondary", setup=[X_TEXT_S]))
    add(x("paste -selection s", "xclip -o -selection s", setup=[X_TEXT_S]))
    add(x("paste -selection p", "xclip -o -selection p", setup=[X_TEXT_P]))
    add(x("paste -select clipboard", "xclip -o -select clipboard", setup=[X_TEXT_C]))
    add(x("paste -selec CLIPBOARD", "xclip -o -selec CLIPBOARD", setup=[X_TEXT_C]))
    add(x("paste -rmlastnl", "xclip -o -sel c -rmlastnl", setup=[X_TEXT_C]))
    add(x("paste -r", "xclip -o -sel c -r", setup=[X_TEXT_C]))
    add(x("paste -noutf8", "xclip -o -sel c -noutf8", setup=[X_TEXT_C]))
    add(x("paste -t UTF8_STRING", "xclip -o -sel c -t UTF8_STRING", setup=[X_UTF8_C]))
    add(x("paste -t STRING (xsel owner, ascii)", "xclip -o -sel c -t STRING", setup=["printf 'plain ascii' | " + XSEL + " -b -i"]))
    add(x("paste -target TEXT", "xclip -o -sel c -target TEXT", setup=[X_TEXT_C]))
    add(x("paste -verbose", "xclip -o -sel c -verbose", setup=[X_TEXT_C]))
    add(x("paste xsel owner", "xclip -o -sel c", setup=[X_UTF8_C]))
    add(x("paste large (INCR)", "xclip -o -sel c", setup=[X_BIG_C]))
    add(x("paste large xsel owner (INCR)", "xclip -o -sel c", setup=["cat big.txt | " + XSEL + " -b -i"]))
    add(x("paste NUL byte", "xclip -o -sel c", setup=[X_NUL_C]))
    add(x("paste ignores files", "xclip -o -sel c a.txt", setup=[X_TEXT_C]))
    add(x("paste -i then -o wins", "xclip -i -o -sel c", setup=[X_TEXT_C]))
    add(x("image probe: TARGETS of xclip text", "xclip -selection clipboard -t TARGETS -o", setup=[X_TEXT_C]))
    add(x("image probe: TARGETS of xsel", "xclip -selection clipboard -t TARGETS -o", setup=[X_UTF8_C]))
    add(x("image probe: TARGETS of a png", "xclip -selection clipboard -t TARGETS -o", setup=[X_PNG_C]))
    add(x("image paste: -t image/png", "xclip -selection clipboard -t image/png -o", setup=[X_PNG_C]))
    add(x("image paste of text from xsel (refused)", "xclip -selection clipboard -t image/png -o", setup=[X_UTF8_C]))
    add(x("text paste of a png (xclip owner answers)", "xclip -o -sel c", setup=[X_PNG_C]))
    add(x("TARGETS of a pbctl copy", "xclip -sel c -t TARGETS -o", setup=["$PBCTL copy notes.md"]))
    add(x("text of a pbctl markdown copy", "xclip -o -sel c", setup=["$PBCTL copy notes.md"]))
    add(x("html of a pbctl markdown copy", "xclip -o -sel c -t text/html", setup=["$PBCTL copy notes.md"]))
    add(x("rtf of a pbctl markdown copy", "xclip -o -sel c -t text/rtf", setup=["$PBCTL copy notes.md"]))
    add(x("png of a pbctl image copy", "xclip -o -sel c -t image/png", setup=["$PBCTL copy red.png"]))
    add(x("text of a pbctl image copy", "xclip -o -sel c", setup=["$PBCTL copy red.png"]))
    add(x("TIMESTAMP of an xsel owner is a number", None, shell="xclip -o -sel c -t TIMESTAMP | grep -c '^[0-9][0-9]*$'", setup=[X_UTF8_C]))
    add(x("unknown target of an xsel owner", "xclip -o -sel c -t application/x-nothing", setup=[X_UTF8_C]))
    add(x("html of an xclip text owner", "xclip -o -sel c -t text/html", setup=[X_TEXT_C],
          differs="xclip's owner answers every target with its bytes; pbctl makes HTML from the text it lists"))
    add(x("-display", ["xclip", "-o", "-sel", "c", "-display", "DISPLAY"], setup=[X_TEXT_C]))
    add(x("-d", ["xclip", "-d", "DISPLAY", "-o", "-sel", "c"], setup=[X_TEXT_C]))
    add(x("-d to a display that is not there", "xclip -d :99 -o -sel c"))
    add(x("-selection buffer-cut round trip", None, shell="printf cut | xclip -selection buffer-cut && xclip -o -selection buffer-cut"))

    # ---- xclip: copying ---------------------------------------------------------------------------------
    add(x("pass/tmux-yank copy", "xclip -selection clipboard", stdin=TEXT_IN, then=X_READ_C))
    add(x("helix copy", "xclip -i -selection clipboard", stdin=TEXT_IN, then=X_READ_C))
    add(x("lazygit copy", "xclip -in -selection clipboard", stdin=TEXT_IN, then=X_READ_C))
    add(x("pyperclip copy", "xclip -selection c", stdin=TEXT_IN, then=X_READ_C))
    add(x("helix copy primary", "xclip -i", stdin=TEXT_IN, then=X_READ_P))
    add(x("copy -sel p", "xclip -sel p", stdin=TEXT_IN, then=X_READ_P))
    add(x("emacs copy secondary", "xclip -selection secondary", stdin=TEXT_IN, then=[XCLIP + " -o -sel s", XSEL + " -o -s"]))
    add(x("emacs copy -select clipboard", "xclip -select clipboard", stdin=TEXT_IN, then=X_READ_C))
    add(x("copy UTF-8", "xclip -sel c", stdin="naïve café ✓\n".encode(), then=X_READ_C))
    add(x("copy empty input", "xclip -sel c", stdin=b"", then=X_READ_C))
    add(x("copy -rmlastnl", "xclip -sel c -rmlastnl", stdin=TEXT_IN, then=X_READ_C))
    add(x("copy -r of two line endings", "xclip -sel c -r", stdin=b"two\n\n", then=X_READ_C))
    add(x("copy a file", "xclip -sel c a.txt", then=X_READ_C))
    add(x("copy two files", "xclip -sel c a.txt b.txt", then=X_READ_C))
    add(x("copy a missing file", "xclip -sel c a.txt missing.txt", then=X_READ_C))
    add(x("copy a large file (INCR)", "xclip -sel c big.txt", then=X_READ_C))
    add(x("copy large input (INCR)", "xclip -sel c", stdin=big, then=X_READ_C))
    add(x("tmux filter -f", "xclip -i -sel p -f", stdin=TEXT_IN, then=X_READ_P))
    add(x("tmux filter -filter", "xclip -i -sel p -filter", stdin=TEXT_IN, then=X_READ_P))
    add(x("tmux filter pipeline", None, shell="printf 'both\\n' | xclip -i -sel p -f | xclip -i -sel c", then=X_READ_P + X_READ_C))
    add(x("filter with -quiet does not echo", "xclip -i -sel c -f -quiet", stdin=TEXT_IN, foreground=True, then=X_READ_C))
    add(x("screenshot pipeline -t image/png", "xclip -selection clipboard -t image/png", stdin=png,
          then=[XCLIP + " -o -sel c -t image/png", X_TARGETS_C]))
    add(x("copy a png file -t image/png", "xclip -sel c -t image/png red.png", then=[XCLIP + " -o -sel c -t image/png"]))
    add(x("copy -t text/markdown", "xclip -sel c -t text/markdown notes.md", then=[XCLIP + " -o -sel c -t text/markdown", X_TARGETS_C]))
    add(x("copy -t text/html", "xclip -sel c -t text/html", stdin=b"<p>x</p>", then=[XCLIP + " -o -sel c -t text/html"]))
    add(x("copy -noutf8", "xclip -sel c -noutf8", stdin=b"ascii\n", then=X_READ_C))
    add(x("copy -loops 1", "xclip -sel c -loops 1", stdin=TEXT_IN, then=[XCLIP + " -o -sel c", XCLIP + " -o -sel c"]))
    add(x("copy -l 1, TARGETS does not count", "xclip -sel c -l 1", stdin=TEXT_IN,
          then=["superset:" + XCLIP + " -o -sel c -t TARGETS", XCLIP + " -o -sel c", XCLIP + " -o -sel c"]))
    add(x("copy -display", ["xclip", "-sel", "c", "-display", "DISPLAY"], stdin=TEXT_IN, then=X_READ_C))
    add(x("copy -silent", "xclip -sel c -silent", stdin=TEXT_IN, then=X_READ_C))
    add(x("neovim copy -quiet", "xclip -quiet -i -selection clipboard", stdin=TEXT_IN, foreground=True, then=X_READ_C))
    add(x("neovim copy -quiet primary", "xclip -quiet -i -selection primary", stdin=TEXT_IN, foreground=True, then=X_READ_P))
    add(x("copy -verbose", "xclip -verbose -i -sel c", stdin=TEXT_IN, foreground=True, then=X_READ_C))
    add(x("copy -quiet -loops 2", "xclip -quiet -loops 2 -sel c", stdin=TEXT_IN, foreground=True, then=X_READ_C))
    add(x("copy -loops 2 in the background", "xclip -sel c -loops 2", stdin=TEXT_IN, then=[XCLIP + " -o -sel c"] * 3))
    add(x("copy -verbose -loops 1", "xclip -verbose -loops 1 -sel c", stdin=TEXT_IN, foreground=True, then=[XCLIP + " -o -sel c"]))
    add(x("out=$(... | xclip) returns", None, shell="out=$(printf x | xclip -sel c); echo done",
          differs="xclip's owner keeps the caller's standard output open, so $(…) waits until the selection is taken; pbctl's does not"))

    # ---- xsel ---------------------------------------------------------------------------------------------
    for argv in ["xsel --help", "xsel -h", "xsel --version", "xsel --bogus", "xsel file", "xsel -q", "xsel --clip", "xsel -t",
                 "xsel --display", "xsel --version --help", "xsel -l -xy -o", "xsel -bq"]:
        add(x("usage: " + argv, argv))
    for argv in ["xsel -o -b", "xsel -o", "xsel -bo", "xsel -o --secondary", "xsel --output --clipboard"]:
        add(x("nothing owned: " + argv, argv))
    add(x("neovim/helix probe then paste", "xsel -o -b", setup=[X_TEXT_C]))
    add(x("paste -bo", "xsel -bo", setup=[X_TEXT_C]))
    add(x("paste -ob", "xsel -ob", setup=[X_UTF8_C]))
    add(x("lazygit paste", "xsel --output --clipboard", setup=[X_TEXT_C]))
    add(x("emacs paste", "xsel --clipboard --output", setup=[X_TEXT_C]))
    add(x("pyperclip paste", "xsel -b -o", setup=[X_UTF8_C]))
    add(x("paste primary", "xsel -o -p", setup=[X_TEXT_P]))
    add(x("paste primary default", "xsel -o", setup=[X_TEXT_P]))
    add(x("emacs paste secondary", "xsel -o --secondary", setup=[X_TEXT_S]))
    add(x("paste -so", "xsel -so", setup=[X_TEXT_S]))
    add(x("paste of a png is nothing", "xsel -o -b", setup=[X_PNG_C]))
    add(x("paste stops at NUL", "xsel -o -b", setup=[X_NUL_C]))
    add(x("paste large (INCR)", "xsel -o -b", setup=[X_BIG_C]))
    add(x("paste -t 500", "xsel -o -b -t 500", setup=[X_TEXT_C]))
    add(x("paste --display", ["xsel", "--display", "DISPLAY", "-o", "-b"], setup=[X_TEXT_C]))
    add(x("paste --display not there", "xsel --display :99 -o -b"))
    add(x("paste -v", "xsel -v -o -b", setup=[X_TEXT_C]))
    add(x("paste a pbctl markdown copy", "xsel -o -b", setup=["$PBCTL copy notes.md"]))
    add(x("no mode: paste then clear (stdin empty)", "xsel -b", setup=[X_TEXT_C], then=X_READ_C))
    add(x("no mode: paste then copy", "xsel -b", setup=[X_TEXT_C], stdin=b"new", then=X_READ_C))
    add(x("neovim copy --nodetach", "xsel --nodetach -i -b", stdin=TEXT_IN, foreground=True, then=X_READ_C))
    add(x("neovim copy --nodetach primary", "xsel --nodetach -i -p", stdin=TEXT_IN, foreground=True, then=X_READ_P))
    add(x("helix copy", "xsel -i -b", stdin=TEXT_IN, then=X_READ_C))
    add(x("pyperclip copy", "xsel -b -i", stdin=TEXT_IN, then=X_READ_C))
    add(x("lazygit copy", "xsel --input --clipboard", stdin=TEXT_IN, then=X_READ_C))
    add(x("tmux-yank copy", "xsel -i --clipboard", stdin=TEXT_IN, then=X_READ_C))
    add(x("tmux-yank copy primary", "xsel -i --primary", stdin=TEXT_IN, then=X_READ_P))
    add(x("emacs copy", "xsel --clipboard --input", stdin=TEXT_IN, then=X_READ_C))
    add(x("emacs copy secondary", "xsel -i --secondary", stdin=TEXT_IN, then=[XCLIP + " -o -sel s", XSEL + " -o -s"]))
    add(x("copy -bi", "xsel -bi", stdin=TEXT_IN, then=X_READ_C))
    add(x("copy -ib with -l /dev/null", "xsel -ib -l /dev/null", stdin=TEXT_IN, then=X_READ_C))
    add(x("copy UTF-8", "xsel -i -b", stdin="naïve ✓".encode(), then=X_READ_C))
    add(x("copy stops at NUL", "xsel -i -b", stdin=b"a\x00b", then=X_READ_C))
    add(x("copy empty input clears", "xsel -i -b", stdin=b"", setup=[X_TEXT_C], then=X_READ_C))
    add(x("copy large (INCR)", "xsel -i -b", stdin=big, then=X_READ_C,
          differs="xsel's daemon takes the selection after its parent has exited, so a read at once may find nothing; pbctl's owner holds it before the copy returns"))
    add(x("append", "xsel -a -b", stdin=b" two", setup=[X_TEXT_C], then=X_READ_C))
    add(x("append to nothing", "xsel --append --clipboard", stdin=b"alone", then=X_READ_C))
    add(x("clear", "xsel -c -b", setup=[X_TEXT_C], then=X_READ_C))
    add(x("clear primary", "xsel --clear", setup=[X_TEXT_P], then=X_READ_P))
    add(x("delete", "xsel -d -b", setup=[X_TEXT_C], then=X_READ_C))
    add(x("exchange", "xsel -x", setup=[X_TEXT_P, X_TEXT_S], then=[XCLIP + " -o", XCLIP + " -o -sel s"]))
    add(x("keep", "xsel -k", setup=[X_TEXT_P, X_TEXT_S], then=[XCLIP + " -o", XCLIP + " -o -sel s"]))
    add(x("copy -t 2000 (owner lifetime)", "xsel -i -b -t 2000", stdin=TEXT_IN, then=X_READ_C))
    add(x("follow", "xsel -f -b", stdin=b"followed text", then=X_READ_C))
    race = "xsel's daemon takes the selection after its parent has exited, so a read at once may find nothing; pbctl's owner holds it before the copy returns"
    add(x("tmux pipeline primary to clipboard", None, shell="printf 'sel\\n' | xsel -i -p && xsel -o -p | xsel -i -b", then=X_READ_C, differs=race))
    add(x("copy then paste round trip", None, shell="printf 'round' | xsel -i -b && xsel -o -b", differs=race))
    add(x("copy, wait, paste round trip", None, shell="printf 'round' | xsel -i -b && sleep 0.3 && xsel -o -b"))

    # ---- wl-copy / wl-paste: help, version, usage ---------------------------------------------------------
    for argv in ["wl-paste -h", "wl-paste --help", "wl-paste -v", "wl-paste --version", "wl-paste --bogus", "wl-paste foo",
                 "wl-paste -w", "wl-paste -w -x", "wl-paste --watch=echo", "wl-paste --type", "wl-paste -x", "wl-paste --list=1",
                 "wl-copy -h", "wl-copy --help", "wl-copy -v", "wl-copy --version", "wl-copy --bogus", "wl-copy -x", "wl-copy -t",
                 "wl-copy --p x", "wl-copy --primary=1", "wl-copy --bogus -h", "wl-copy -h --bogus"]:
        add(w("usage: " + argv, argv))

    # ---- wl-paste -----------------------------------------------------------------------------------------
    for argv in ["wl-paste", "wl-paste -n", "wl-paste -l", "wl-paste -p", "wl-paste --list-types --primary", "wl-paste -t text"]:
        add(w("nothing owned: " + argv, argv))
    add(w("neovim/helix paste", "wl-paste --no-newline", setup=[W_TEXT]))
    add(w("paste adds a line ending", "wl-paste", setup=[W_TEXT]))
    add(w("paste adds a second line ending", "wl-paste", setup=[W_TEXT_NL]))
    add(w("paste -n keeps the copied line ending", "wl-paste -n", setup=[W_TEXT_NL]))
    add(w("pyperclip paste", "wl-paste -n -t text", setup=[W_TEXT]))
    add(w("paste -t text", "wl-paste -t text", setup=[W_TEXT]))
    add(w("paste -t TEXT", "wl-paste -t TEXT", setup=[W_TEXT]))
    add(w("paste -t UTF8_STRING", "wl-paste -t UTF8_STRING", setup=[W_TEXT]))
    add(w("paste -t text/plain", "wl-paste -t text/plain", setup=[W_TEXT]))
    add(w("paste -t tex (prefix)", "wl-paste -t tex", setup=[W_TEXT]))
    add(w("paste --type=text/plain;charset=utf-8", ["wl-paste", "--type=text/plain;charset=utf-8"], setup=[W_TEXT]))
    add(w("list types of a wl-copy text", "wl-paste -l", setup=[W_TEXT]))
    add(w("image probe: list types of a png", "wl-paste --list-types", setup=[W_PNG]))
    add(w("image paste --type image/png", "wl-paste --type image/png", setup=[W_PNG]))
    add(w("image paste -t image (prefix)", "wl-paste -t image", setup=[W_PNG]))
    add(w("text paste of a png", "wl-paste", setup=[W_PNG]))
    add(w("text paste of a png -t text", "wl-paste -t text", setup=[W_PNG]))
    add(w("paste primary", "wl-paste -p", setup=[W_TEXT_P]))
    add(w("paste --primary --no-newline", "wl-paste --primary --no-newline", setup=[W_TEXT_P]))
    add(w("paste of a markdown copy", "wl-paste", setup=[W_MD]))
    add(w("list types of a markdown copy", "wl-paste -l", setup=[W_MD]))
    add(w("paste large", "wl-paste -n", setup=[W_BIG]))
    add(w("paste -s seat0", "wl-paste -s seat0", setup=[W_TEXT]))
    add(w("paste into out.txt (type from the name)", "wl-paste", setup=[W_TEXT], stdout_name="out.txt"))
    add(w("paste into out.png of text", "wl-paste", setup=[W_TEXT], stdout_name="out.png"))
    add(w("paste into out.png of a png", "wl-paste", setup=[W_PNG], stdout_name="out.png"))
    add(w("list types of a pbctl markdown copy", "wl-paste -l", setup=["$PBCTL copy notes.md"]))
    add(w("html of a pbctl markdown copy", "wl-paste -t text/html", setup=["$PBCTL copy notes.md"]))
    add(w("paste of a pbctl copy", "wl-paste", setup=["printf 'from pbctl' | $PBCTL copy"]))
    add(w("html of a wl-copy text", "wl-paste -t text/html", setup=[W_TEXT],
          differs="wl-paste finds no text/html; pbctl makes HTML from the text offered"))

    # ---- wl-copy ------------------------------------------------------------------------------------------
    add(w("tmux-yank/lazygit copy", "wl-copy", stdin=TEXT_IN, then=W_READ))
    add(w("neovim copy --type text/plain", "wl-copy --type text/plain", stdin=TEXT_IN, then=W_READ))
    add(w("neovim copy primary", "wl-copy --primary --type text/plain", stdin=TEXT_IN, then=W_READ_P))
    add(w("helix copy primary", "wl-copy -p --type text/plain", stdin=TEXT_IN, then=W_READ_P))
    add(w("neovim 0.7 copy --foreground", "wl-copy --foreground --type text/plain", stdin=TEXT_IN, foreground=True, then=W_READ))
    add(w("emacs copy -f -n", "wl-copy -f -n", stdin=TEXT_IN, foreground=True, then=W_READ))
    add(w("pyperclip copy", "wl-copy", stdin=b"py text", then=W_READ))
    add(w("pyperclip copy primary", "wl-copy -p", stdin=b"py text", then=W_READ_P))
    add(w("pyperclip clear", "wl-copy --clear", setup=[W_TEXT], then=[WLPASTE]))
    add(w("clear primary", "wl-copy -c -p", setup=[W_TEXT_P], then=[WLPASTE + " -p"]))
    add(w("copy words", "wl-copy hello big world", then=W_READ))
    add(w("copy words after options", "wl-copy hello -p world", then=W_READ_P))
    add(w("copy -- -p", "wl-copy -- -p", then=W_READ))
    add(w("copy -n", "wl-copy -n", stdin=b"trimmed\n", then=W_READ))
    add(w("copy --trim-newline of two", "wl-copy --trim-newline", stdin=b"two\n\n", then=W_READ))
    add(w("copy --paste-once", "wl-copy --paste-once", stdin=b"once", then=[WLPASTE, "sleep 0.4; " + WLPASTE]))
    add(w("copy --paste-once, read again at once", "wl-copy --paste-once", stdin=b"once", then=[WLPASTE, WLPASTE],
          differs="pbctl's one-paste owner keeps the selection 250 ms after its paste (so the reader can tell a whole transfer); a paste then reads nothing instead of finding no selection"))
    add(w("copy UTF-8", "wl-copy", stdin="naïve café ✓".encode(), then=W_READ))
    add(w("copy empty input", "wl-copy", stdin=b"", then=[WLPASTE, "superset:" + WLPASTE + " -l"]))
    add(w("screenshot pipeline", "wl-copy", stdin=png, then=[WLPASTE + " -t image/png", "superset:" + WLPASTE + " -l"]))
    add(w("copy -t image/png", "wl-copy -t image/png", stdin=png, then=[WLPASTE + " -t image/png"]))
    add(w("copy a markdown file on stdin", "wl-copy", stdin_file="notes.md", then=[WLPASTE, "superset:" + WLPASTE + " -l"]))
    add(w("copy large", "wl-copy", stdin=big, then=[WLPASTE + " -n"]))
    add(w("copy -s seat0", "wl-copy -s seat0 seat text", then=W_READ))
    add(w("copy then paste round trip", None, shell="printf 'round' | wl-copy && wl-paste -n"))
    add(w("clipboard manager --watch", None, shell="(timeout 2.5 wl-paste --watch sh -c 'cat; echo \\<' > watched &); sleep 0.8; "
          "printf second | " + WLCOPY + "; sleep 0.5; printf third | " + WLCOPY + "; sleep 1.5; cat watched", setup=[W_TEXT]))
    add(w("--watch -p with -n", None, shell="(timeout 2 wl-paste -n -p --watch sh -c 'cat; echo \\|' > watched &); sleep 0.8; "
          "printf 'p2\\n' | " + WLCOPY + " -p; sleep 1.5; cat watched", setup=[W_TEXT_P]))

    # ---- bytes that are not UTF-8, STRING, images read back, paste-once, a refusing owner (issue 47) ------------
    latin1 = b"caf\xe9 cr\xe8me\n"
    x_latin1 = "printf 'caf\\351' | " + XCLIP + " -sel c"
    refusing = "/usr/bin/python3 $PEERS/refusing_peer.py CLIPBOARD"
    add(x("copy Latin-1 text", "xclip -sel c", stdin=latin1, then=X_READ_C))
    add(x("copy Latin-1 text primary", "xclip -i", stdin=latin1, then=X_READ_P))
    add(x("copy Latin-1 text -t STRING", "xclip -sel c -t STRING", stdin=latin1, then=[XCLIP + " -o -sel c -t STRING", XSEL + " -o -b"]))
    add(x("Latin-1 round trip", None, shell="printf 'caf\\351\\n' | xclip -sel c && xclip -o -sel c"))
    add(x("paste Latin-1 of an xclip owner", "xclip -o -sel c", setup=[x_latin1]))
    add(x("xsel copy Latin-1 text", "xsel -i -b", stdin=latin1, then=X_READ_C))
    add(x("xsel Latin-1 round trip", None, shell="printf 'caf\\351' | xsel -i -b && sleep 0.3 && xsel -o -b"))
    add(x("xsel paste Latin-1 of an xclip owner", "xsel -o -b", setup=[x_latin1]))
    add(w("wl-copy Latin-1 text", "wl-copy", stdin=latin1, then=[WLPASTE + " -n", WLPASTE + " -t text/plain"]))
    add(w("wl-copy Latin-1 round trip", None, shell="printf 'caf\\351' | wl-copy && wl-paste -n"))
    add(w("wl-copy a Latin-1 argument", None, shell="wl-copy \"$(printf 'caf\\351')\"", then=[WLPASTE + " -n", WLPASTE + " -t text/plain"]))
    add(w("wl-paste of a Latin-1 wl-copy", "wl-paste -n", setup=["printf 'caf\\351' | " + WLCOPY]))
    gtk_string = "QT_QPA_PLATFORM=xcb NO_AT_BRIDGE=1 /usr/bin/python3 $PEERS/gtk_peer.py text-of STRING"
    add(x("STRING of text outside Latin-1", "xclip -sel c", stdin="na\u00efve \u2713 \U0001f600\n".encode(),
          then=[XCLIP + " -o -sel c -t STRING", X_TARGETS_C, XCLIP + " -o -sel c"],
          differs="STRING is Latin-1 (ICCCM): pbctl's owner serves a character outside it as GTK 3 does (\\u2713), where xclip's answers every target with its UTF-8 bytes"))
    add(x("beyond: STRING of text outside Latin-1 is served, as GTK 3 serves it", None,
          shell="printf 'na\\303\\257ve \\342\\234\\223 \\360\\237\\230\\200' | xclip -sel c && " + XCLIP + " -o -sel c -t STRING",
          beyond=lambda s: True if s.get("status") == 0 and s.get("stdout") == b"na\xefve \\u2713 \\U0001f600" else repr(s)))
    add(x("beyond: GTK reads STRING of a pbctl copy outside Latin-1", None,
          shell="printf 'na\\303\\257ve \\342\\234\\223' | $PBCTL copy && " + gtk_string,
          beyond=lambda s: True if s.get("status") == 0 and b"na\xc3\xafve \\u2713" in s.get("stdout", b"") else repr(s)))
    add(x("beyond: a .txt copy offers the text targets", None, shell="$PBCTL copy a.txt && " + XCLIP + " -o -sel c -t TARGETS",
          beyond=lambda s: True if all(n in s.get("stdout", b"").split(b"\n") for n in [b"UTF8_STRING", b"STRING", b"TEXT", b"text/plain"])
          else repr(s)))
    add(w("beyond: a .txt copy offers every name wl-copy offers for text", None, shell="$PBCTL copy a.txt && " + WLPASTE + " -l",
          beyond=lambda s: True if all(n in s.get("stdout", b"").split(b"\n") for n in
                                       [b"text/plain;charset=utf-8", b"text/plain", b"UTF8_STRING", b"STRING", b"TEXT"]) else repr(s)))
    add(w("beyond: GTK 3 on Wayland pastes a .txt copy", None,
          shell="$PBCTL copy a.txt && GDK_BACKEND=wayland NO_AT_BRIDGE=1 /usr/bin/python3 $PEERS/gtk_peer.py window-text",
          beyond=lambda s: True if s.get("status") == 0 and s.get("stdout") == b"first file\n" else repr(s)))
    add(w("image copied with wl-copy read back with no type", None, shell="wl-copy < red.png && wl-paste | cmp - red.png && echo same"))
    add(w("image copied with wl-copy -t image/png read back with no type", None,
          shell="wl-copy -t image/png < red.png && wl-paste | cmp - red.png && echo same"))
    add(w("image copied with wl-copy read back by the real wl-paste", "wl-copy", stdin=png, then=[WLPASTE + " -t image/png"]))
    # The real wl-copy serves from a forked child that may not own the selection yet when it returns.
    add(w("paste-once read twice", None, shell="printf once | wl-copy -o && sleep 0.3 && wl-paste; echo status=$?; sleep 0.4; wl-paste; echo status=$?"))
    add(w("paste-once read twice at once", None, shell="printf once | wl-copy -o && sleep 0.3 && wl-paste; echo status=$?; wl-paste; echo status=$?"))
    add(x("refusing owner: xclip -o", "xclip -o -sel c", setup=[refusing]))
    add(x("refusing owner: xclip -o -t text/html", "xclip -o -sel c -t text/html", setup=[refusing]))
    add(x("refusing owner: xclip -o -t TARGETS", "xclip -o -sel c -t TARGETS", setup=[refusing]))
    add(x("refusing owner: xsel -o", "xsel -o -b", setup=[refusing]))
    # The careless refusal: the reply names the property asked for and the owner never sets it.
    for argv in ["xclip -o -sel c", "xclip -o -sel c -t text/html", "xsel -o -b"]:
        add(x("refusing owner, property never set: " + argv, argv, setup=[refusing + "+unset"]))
    add(x("beyond: pbctl paste names a refusal by a property never set", None, setup=[refusing + "+unset"], shell="$PBCTL paste; echo status=$?",
          beyond=lambda s: True if s.get("stdout") == b"status=1\n" and b"the selection owner refused STRING" in s.get("stderr", b"") else repr(s)))
    add(x("xclip -o asks one conversion", None, shell="rm -f asked; " + refusing + " asked UTF8_STRING hello >/dev/null && xclip -o -sel c; echo; cat asked"))
    add(x("xclip -o asks STRING after a refused UTF8_STRING", None,
          shell="rm -f asked; " + refusing + " asked STRING latin >/dev/null && xclip -o -sel c; echo; cat asked"))
    add(x("xsel -o asks one conversion", None, shell="rm -f asked; " + refusing + " asked UTF8_STRING hello >/dev/null && xsel -o -b; echo; cat asked"))
    add(x("beyond: pbctl paste names the refusal", None, setup=[refusing], shell="$PBCTL paste -t text/html; echo status=$?",
          beyond=lambda s: True if s.get("stdout") == b"status=1\n" and b"the selection owner refused text/html" in s.get("stderr", b"") else repr(s)))

    # ---- what GTK 3 and Qt 5 read of a copy (Tests/X11Peers) --------------------------------------------------
    gtk = "QT_QPA_PLATFORM=xcb NO_AT_BRIDGE=1 /usr/bin/python3 $PEERS/gtk_peer.py "
    qt = "QT_QPA_PLATFORM=xcb /usr/bin/python3 $PEERS/qt_peer.py "
    add(x("GTK and Qt read an xclip text copy", "xclip -sel c", stdin="naïve ✓\n".encode(), then=[gtk + "text", qt + "text", gtk + "paste UTF8_STRING"]))
    add(x("GTK and Qt read an xsel copy", "xsel -i -b", stdin=TEXT_IN, then=[gtk + "text", qt + "text"]))
    add(x("GTK and Qt read an xclip image copy", "xclip -sel c -t image/png", stdin=png, then=[gtk + "image gtk.png", qt + "image qt.png"]))
    add(x("GTK text of an xclip image copy", "xclip -sel c -t image/png", stdin=png, then=[gtk + "text"]))

    # ---- callers driven for real: Neovim's provider, tmux's copy-pipe, pass ---------------------------------
    nvim = "rm -f pasted.txt yanked out; /usr/bin/nvim --headless --clean -n -c 'set shell=/bin/sh' "
    yank = nvim + "-c 'call setline(1, [\"from nvim\", \"second line\"])' -c 'normal gg\"+yj' -c 'sleep 300m' "
    add(x("neovim \"+y then xclip -o", None, shell=yank + "-c 'call writefile(systemlist(\"" + XCLIP + " -o -selection clipboard\"), \"yanked\")' -c 'qa!'; cat yanked"))
    add(x("neovim \"*y then xsel -o", None, shell=nvim + "-c 'call setline(1, \"primary line\")' -c 'normal \"*yy' -c 'sleep 300m' "
          "-c 'call writefile(systemlist(\"" + XSEL + " -o -p\"), \"yanked\")' -c 'qa!'; cat yanked"))
    add(x("neovim \"+p of an xclip copy", None, setup=[X_TEXT_C], shell=nvim + "-c 'normal \"+p' -c 'w! pasted.txt' -c 'qa!'; cat pasted.txt"))
    add(x("neovim \"+p with nothing owned", None, shell=nvim + "-c 'normal \"+p' -c 'w! pasted.txt' -c 'qa!'; cat pasted.txt"))
    add(x("neovim chooses xsel by its probe, then \"+y and \"+p", None,
          shell="PATH=$XSEL_ONLY " + nvim + "-c 'call setline(1, \"via xsel\")' -c 'normal \"+yy' -c 'sleep 300m' -c 'normal \"+p' "
          "-c 'call writefile([provider#clipboard#Executable()] + getline(1, \"$\") + systemlist(\"" + XSEL + " -o -b\"), \"out\")' -c 'qa!'; cat out"))
    add(w("neovim \"+y then wl-paste", None, shell=yank + "-c 'call writefile(systemlist(\"" + WLPASTE + " -n\"), \"yanked\")' -c 'qa!'; cat yanked"))
    add(w("neovim \"+p of a wl-copy", None, setup=[W_TEXT], shell=nvim + "-c 'normal \"+p' -c 'w! pasted.txt' -c 'qa!'; cat pasted.txt"))
    tmux = "tmux -L compat-$$ -f /dev/null "
    pane = (tmux + "new-session -d -x 80 -y 10 \"printf 'tmux line\\\\n'; sleep 10\"; sleep 0.4; " + tmux + "copy-mode; "
            + tmux + "send -X history-top; " + tmux + "send -X start-of-line; " + tmux + "send -X select-line; ")
    add(x("tmux copy-pipe to xclip -f | xclip", None, shell=pane + tmux + "send -X copy-pipe-and-cancel 'xclip -i -sel p -f | xclip -i -sel c'; sleep 0.6; "
          + tmux + "kill-server; " + XCLIP + " -o -sel c; " + XCLIP + " -o"))
    add(x("tmux copy-command xsel", None, shell=tmux + "start-server \\; set -s copy-command 'xsel -i --clipboard' \\; " + "new-session -d -x 80 -y 10 "
          "\"printf 'tmux line\\\\n'; sleep 10\"; sleep 0.4; " + tmux + "copy-mode; " + tmux + "send -X history-top; " + tmux + "send -X select-line; "
          + tmux + "send -X copy-pipe-and-cancel; sleep 0.6; " + tmux + "kill-server; " + XSEL + " -o -b"))
    add(x("tmux paste: xclip -o | tmux load-buffer", None, setup=[X_TEXT_C], shell=tmux + "new-session -d; xclip -o -sel c | " + tmux + "load-buffer -; "
          + tmux + "save-buffer -; " + tmux + "kill-server"))
    add(w("tmux copy-pipe to wl-copy", None, shell=pane + tmux + "send -X copy-pipe-and-cancel 'wl-copy'; sleep 0.6; " + tmux + "kill-server; " + WLPASTE + " -n"))
    passing = "PASSWORD_STORE_CLIP_TIME=1 pass show -c test/site; sleep 0.3; "
    add(x("pass show -c copies, then restores", None, setup=["printf before | " + XCLIP + " -sel c"],
          shell=passing + XCLIP + " -o -sel c; echo; sleep 2; " + XCLIP + " -o -sel c"))
    add(w("pass show -c copies, then restores (Wayland)", None, setup=["printf before | " + WLCOPY],
          shell=passing + WLPASTE + " -n; echo; sleep 2; " + WLPASTE + " -n"))

    # ---- beyond: what only pbctl does -----------------------------------------------------------------------
    def contains(*needles):
        def check(seen):
            out = seen.get("stdout", b"")
            if seen.get("status") != 0:
                return "status %r, stderr %r" % (seen.get("status"), seen.get("stderr"))
            missing = [n for n in needles if n not in out]
            return True if not missing else "missing %r in %r" % (missing, out[:200])
        return check

    def starts(magic):
        def check(seen):
            out = seen.get("stdout", b"")
            return True if seen.get("status") == 0 and out.startswith(magic) else "status %r, %r" % (seen.get("status"), out[:40])
        return check

    jpeg, webp = b"\xff\xd8\xff", b"RIFF"
    add(x("beyond: GTK reads HTML of an xclip -t text/markdown copy", None,
          shell="xclip -sel c -t text/markdown notes.md && QT_QPA_PLATFORM=xcb NO_AT_BRIDGE=1 /usr/bin/python3 $PEERS/gtk_peer.py paste text/html",
          beyond=contains(b"<h1>Title</h1>")))
    add(x("beyond: Qt reads every image format of an xclip png copy", None,
          shell="xclip -sel c -t image/png red.png && QT_QPA_PLATFORM=xcb /usr/bin/python3 $PEERS/qt_peer.py formats",
          beyond=contains(b"image/png", b"image/jpeg", b"image/bmp")))
    add(x("beyond: html of an xclip markdown owner", "xclip -o -sel c -t text/html", setup=[X_MD_C], beyond=contains(b"<h1>Title</h1>", b"<em>")))
    add(x("beyond: rtf of an xclip markdown owner", "xclip -o -sel c -t text/rtf", setup=[X_MD_C], beyond=contains(b"{\\rtf1")))
    add(x("beyond: jpeg of an xclip png owner", "xclip -o -sel c -t image/jpeg", setup=[X_PNG_C], beyond=starts(jpeg)))
    add(x("beyond: webp of a gtk-less png owner", "xclip -o -sel c -t image/webp", setup=[X_PNG_C], beyond=starts(webp)))
    add(x("beyond: xclip -t text/markdown -i offers html", None, shell="xclip -sel c -t text/markdown -i notes.md && " + XCLIP + " -o -sel c -t TARGETS",
          beyond=contains(b"text/markdown", b"text/html", b"text/rtf", b"UTF8_STRING")))
    add(x("beyond: real xclip reads html of an xclip markdown copy", None,
          shell="xclip -sel c -t text/markdown notes.md && " + XCLIP + " -o -sel c -t text/html", beyond=contains(b"<h1>Title</h1>")))
    add(w("beyond: jpeg of a wl-copy png", "wl-paste --type image/jpeg", setup=[W_PNG], beyond=starts(jpeg)))
    add(w("beyond: html of a wl-copy markdown", "wl-paste --type text/html", setup=[W_MD], beyond=contains(b"<h1>Title</h1>")))
    add(w("beyond: out.jpg of a wl-copy png", None, shell="wl-paste > out.jpg && head -c3 out.jpg", setup=[W_PNG], beyond=starts(jpeg)))
    add(w("beyond: wl-copy -t text/markdown offers html", None, shell="wl-copy -t text/markdown < notes.md && " + WLPASTE + " -l",
          beyond=contains(b"text/markdown", b"text/html", b"text/rtf")))
    add(w("beyond: real wl-paste reads html of a wl-copy markdown", None,
          shell="wl-copy < notes.md && " + WLPASTE + " -t text/html", beyond=contains(b"<h1>Title</h1>")))
    # Without a display: the store.
    add(x("beyond: store TARGETS of a markdown copy", None, shell="unset DISPLAY; $PBCTL copy notes.md && xclip -sel c -t TARGETS -o",
          beyond=contains(b"TARGETS\n", b"text/markdown\n", b"text/html\n", b"UTF8_STRING\n")))
    add(x("beyond: store xclip round trip", None, shell="unset DISPLAY; printf 'stored' | xclip -sel c && xclip -o -sel c", beyond=contains(b"stored")))
    add(x("beyond: store Latin-1 round trip through each tool", None,
          shell="unset DISPLAY WAYLAND_DISPLAY; printf 'caf\\351' | xclip -sel c && xclip -o -sel c && xsel -o -b && wl-paste -n",
          beyond=lambda s: True if s.get("status") == 0 and s.get("stdout") == b"caf\xe9" * 3 else repr(s)))
    add(x("beyond: store xsel probe", None, shell="unset DISPLAY; xsel -o -b; echo status=$?", beyond=contains(b"status=0")))
    add(w("beyond: store wl-paste -t image/webp of a png", None, shell="unset WAYLAND_DISPLAY; wl-copy < red.png && wl-paste -t image/webp",
          beyond=starts(webp)))
    add(w("beyond: store wl-paste -l of a markdown copy", None, shell="unset WAYLAND_DISPLAY; $PBCTL copy notes.md && wl-paste -l",
          beyond=contains(b"text/markdown\n", b"text/html\n", b"text/plain;charset=utf-8\n")))
    add(x("beyond: store xclip -o of an image says what xclip says", None,
          shell="unset DISPLAY; $PBCTL copy red.png; xclip -o -sel c; echo status=$?", beyond=lambda s: True
          if b"status=1" in s["stdout"] and s["stderr"] == b"Error: target STRING not available\n" else repr(s)))
    return out
