SHELL := /bin/bash
# pbctl: build, run, test, install, bench. Every target installs the Debian packages it needs first
# (as root, or through sudo when available; otherwise it prints the exact apt line and stops).

SWIFT      ?= swift
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/pbctl
# /etc for a system install (PREFIX=/usr), else under the prefix.
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
# xclip, xsel, wl-copy and wl-paste as links to pbctl, in a folder of pbctl's own that users put first in
# PATH (pbctl compat): the system's tools stay as they are.
COMPATDIR  ?= $(PREFIX)/lib/pbctl/compat
# The version is written once, in Sources/pbctl/BuildInfo.swift; `make deb` takes it from there.
VERSION    := $(shell sed -n 's/^let pbctlVersion = "\(.*\)"/\1/p' Sources/pbctl/BuildInfo.swift)
# Release builds are fully static executables (the Swift runtime, Foundation, glibc and libxcb
# linked in): no dynamic loader, no shared-library loading or symbol binding at start-up. pbctl then
# starts in 1.1-1.3x the time of /bin/true (0.69 ms beside 0.54 ms, docs/benchmarks.md), which lets a small `pbctl paste` beat xsel's
# (docs/benchmarks.md, X11). Earlier, a dynamic executable with the runtime linked statically spent
# about 2 ms of each start-up in the loader and libstdc++. `scripts/release-smoke.sh` (run by
# `make test`) checks that the result is static and works with the store and with X over a Unix
# socket and TCP.
#
# The link is lld's, with the symbols short commands touch laid out first (scripts/startup.order, made by
# `make startup-order`): a small paste then faults in about 95 pages of the binary instead of 150, which
# is most of what separates it from `cat` (docs/benchmarks.md, Store). The gold link, without the
# order, works the same, only slower to start. The modules are compiled with -function-sections: without it
# a release build keeps each file's internal functions in one section, which the order can only move whole.
#
# OpenSSL's CPU probe, which its static archive runs from .init in every process, is deferred to the first
# use of OpenSSL (--wrap and -u of OPENSSL_cpuid_setup; Sources/COpenSSL/cpuid.c says how).
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -static-executable -Xswiftc -Xfrontend -Xswiftc -function-sections -Xlinker -lXau -Xlinker -lXdmcp \
                 -Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file=$(CURDIR)/scripts/startup.order \
                 -Xlinker --no-warn-symbol-ordering \
                 -Xlinker --wrap=OPENSSL_cpuid_setup -Xlinker --undefined=OPENSSL_cpuid_setup
RELEASE    := $(SWIFT) build $(RELEASE_FLAGS) --product pbctl
BUILD_DEPS := libxcb1-dev libxcb-xfixes0-dev libxau-dev libxdmcp-dev zlib1g-dev libsqlite3-dev libpng-dev libjpeg62-turbo-dev libwebp-dev libdeflate-dev libssl-dev pkg-config
# What the tests drive: a real X server and real peers (xclip, xsel, GTK 3, Qt 5), LibreOffice and
# pandoc reading our RTF, cmark for comparison, getfattr for extended attributes, ImageMagick reading
# the images pbctl writes, OpenSSH's server for pbctl ssh; KDE Connect's kdeconnectd (with its own Xvfb
# and dbus-daemon, in network namespaces the tests make with iproute2) and openssl for a scripted peer's
# certificates; sqlite3 checks the history's database, rofi (driven by xdotool) and fzf are the launchers
# `history pick` is tested with; strace slows an owner's writes (a transfer cut short mid-way). (The Wayland protocol XML the named opcodes are checked against is kept in
# Tests/PasteboardWaylandTests/Protocol/XML.)
TEST_DEPS  := xvfb xauth xclip xsel x11-utils python3 python3-gi gir1.2-gtk-3.0 python3-pyqt5 \
              libreoffice-writer-nogui pandoc cmark cmark-gfm attr zip unzip procps \
              man-db groff bash-completion zsh fish systemd lintian dpkg-dev tmux sway wl-clipboard imagemagick time \
              openssh-server openssh-client \
              kdeconnect dbus-daemon iproute2 openssl sqlite3 rofi fzf xdotool strace
BENCH_DEPS := hyperfine cmark cmark-gfm pulldown-cmark libmd4c-dev libmd4c-html0-dev gcc libc6-dev pandoc xclip xsel xvfb python3 time sway wl-clipboard file imagemagick fonts-dejavu-core \
              openssh-server openssh-client

.PHONY: all build release run test deps test-deps stamp startup-order bench fuzz test-asan test-tsan install install-files uninstall deb clean

all: build

deps:
	@scripts/apt-ensure.sh $(BUILD_DEPS)

test-deps:
	@scripts/apt-ensure.sh $(BUILD_DEPS) $(TEST_DEPS)

# The commit `pbctl --version` names (Sources/pbctl/BuildCommit.swift, git-ignored).
stamp:
	@scripts/stamp-commit.sh

# build and release do not check apt (a second per call): `make deps` once, or any target below that
# starts from a fresh machine (run, test, bench, install, deb) does it first.
build: stamp
	$(SWIFT) build

release: stamp
	$(RELEASE)

# The main job, with or without a display: build pbctl and show a copy/paste round trip through the
# store. `make run ARGS="paste --type public.html"` runs pbctl with your own arguments instead.
run: deps release
	@if [ -n "$(ARGS)" ]; then "$$($(RELEASE) --show-bin-path)/pbctl" $(ARGS); \
	else scripts/demo.sh "$$($(RELEASE) --show-bin-path)/pbctl"; fi

# Unit, spec-conformance and integration tests (Xvfb, xclip, xsel, GTK, Qt, LibreOffice, pandoc),
# then the release binary's smoke test.
test: test-deps stamp
	scripts/check-source.sh
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build 2>&1 | tee .build/test.log; status=$${PIPESTATUS[0]}; \
	    if [ $$status -ne 0 ]; then echo '== failing tests (from .build/test.log) =='; \
	    grep -E ": error: |' failed \\(" .build/test.log | cut -c1-300; fi; exit $$status
	$(RELEASE)
	scripts/release-smoke.sh "$$($(RELEASE) --show-bin-path)/pbctl"
	scripts/test-packaging.sh

# Coverage-guided fuzzing of every reader of outside bytes (libFuzzer + ASan, scripts/fuzz.sh):
# FUZZ_SECONDS per target (60), FUZZ_PARALLEL targets at once (1), FUZZ_TARGETS to choose. Findings
# go to Tests/Fuzz/regressions/<target>/, replayed by every `make test`.
# Then the release binary itself on mutated inputs (target "cli": documented exit codes, no hang).
fuzz: deps release
	FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_PARALLEL="$(FUZZ_PARALLEL)" FUZZ_TARGETS="$(FUZZ_TARGETS)" \
	    FUZZ_PBCTL="$$($(RELEASE) --show-bin-path)/pbctl" scripts/fuzz.sh

# Every test but the CLI suite (which drives the binary as a user would) under AddressSanitizer, in
# a build folder of their own; CI runs it after make test. (swiftc 6.3 refuses -sanitize=undefined on
# Linux; the only C linked is the system's libxcb and zlib.)
test-asan: test-deps
	$(SWIFT) build --build-tests --scratch-path .build-asan -Xswiftc -sanitize=address
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --scratch-path .build-asan \
	    --skip pbctlTests 2>&1 | tee .build-asan/test.log; exit $${PIPESTATUS[0]}

# The X11 owner, daemon and watch tests under ThreadSanitizer (their processes are the TSan build).
test-tsan: test-deps
	$(SWIFT) build --build-tests --scratch-path .build-tsan -Xswiftc -sanitize=thread
	$(SWIFT) test --skip-build --scratch-path .build-tsan \
	    --filter 'X11TransferTests|X11DaemonTests|X11NegotiationTests|X11PeerTests|PasteboardX11Tests' 2>&1 \
	    | tee .build-tsan/test.log; exit $${PIPESTATUS[0]}

# Regenerates scripts/startup.order from traced runs of the release binary (scripts/startup-order.sh).
startup-order: deps release
	@scripts/apt-ensure.sh valgrind binutils xvfb xclip sway wl-clipboard
	scripts/startup-order.sh "$$($(RELEASE) --show-bin-path)/pbctl"
	@# The order file is not an input SwiftPM tracks: relink with it now.
	rm -f "$$($(RELEASE) --show-bin-path)/pbctl"
	$(RELEASE)

bench: deps
	@scripts/apt-ensure.sh $(BENCH_DEPS)
	BENCH_RELEASE_FLAGS="$(RELEASE_FLAGS)" scripts/bench.sh

# What `make install` puts under $(DESTDIR): the binary and its macOS-named links, the xclip, xsel,
# wl-copy and wl-paste links in $(COMPATDIR), the manual and the
# completions (generated by the binary from the same option specs as its help), the systemd user unit,
# the XDG autostart entry and the docs. `make uninstall` removes exactly these.
INSTALLED = $(BINDIR)/pbctl $(BINDIR)/pbcopy $(BINDIR)/pbpaste \
            $(COMPATDIR)/xclip $(COMPATDIR)/xsel $(COMPATDIR)/wl-copy $(COMPATDIR)/wl-paste \
            $(MANDIR)/man1/pbctl.1 $(MANDIR)/man1/pbcopy.1 $(MANDIR)/man1/pbpaste.1 \
            $(DATADIR)/bash-completion/completions/pbctl $(DATADIR)/zsh/vendor-completions/_pbctl \
            $(DATADIR)/fish/vendor_completions.d/pbctl.fish $(USERUNITDIR)/pbctl-daemon.service \
            $(SYSCONFDIR)/xdg/autostart/pbctl-daemon.desktop $(DOCDIR)/README.md $(DOCDIR)/reliability.md \
            $(DOCDIR)/negotiation.md $(DOCDIR)/x11-selections.md

install: deps release install-files

# The install steps alone, from the release binary already built (make deb uses them).
install-files:
	@bin="$$($(RELEASE) --show-bin-path)/pbctl"; set -e; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(DATADIR)/bash-completion/completions" \
	    "$(DESTDIR)$(DATADIR)/zsh/vendor-completions" "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d" \
	    "$(DESTDIR)$(USERUNITDIR)" "$(DESTDIR)$(SYSCONFDIR)/xdg/autostart" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(COMPATDIR)"; \
	install -m 0755 "$$bin" "$(DESTDIR)$(BINDIR)/pbctl"; \
	ln -sf pbctl "$(DESTDIR)$(BINDIR)/pbcopy"; ln -sf pbctl "$(DESTDIR)$(BINDIR)/pbpaste"; \
	for tool in xclip xsel wl-copy wl-paste; do ln -sf "$(BINDIR)/pbctl" "$(DESTDIR)$(COMPATDIR)/$$tool"; done; \
	"$$bin" help --man > "$(DESTDIR)$(MANDIR)/man1/pbctl.1"; \
	printf '.so man1/pbctl.1\n' > "$(DESTDIR)$(MANDIR)/man1/pbcopy.1"; \
	printf '.so man1/pbctl.1\n' > "$(DESTDIR)$(MANDIR)/man1/pbpaste.1"; \
	"$$bin" completions bash > "$(DESTDIR)$(DATADIR)/bash-completion/completions/pbctl"; \
	"$$bin" completions zsh > "$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_pbctl"; \
	"$$bin" completions fish > "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/pbctl.fish"; \
	sed 's|@BINDIR@|$(BINDIR)|' dist/pbctl-daemon.service.in > "$(DESTDIR)$(USERUNITDIR)/pbctl-daemon.service"; \
	install -m 0644 dist/pbctl-daemon.desktop "$(DESTDIR)$(SYSCONFDIR)/xdg/autostart/pbctl-daemon.desktop"; \
	install -m 0644 README.md docs/reliability.md docs/negotiation.md docs/x11-selections.md "$(DESTDIR)$(DOCDIR)/"; \
	chmod 0644 "$(DESTDIR)$(MANDIR)"/man1/*.1 "$(DESTDIR)$(DATADIR)/bash-completion/completions/pbctl" \
	    "$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_pbctl" "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/pbctl.fish" \
	    "$(DESTDIR)$(USERUNITDIR)/pbctl-daemon.service"

uninstall:
	rm -f $(addprefix "$(DESTDIR),$(addsuffix ",$(INSTALLED)))
	-rmdir "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(COMPATDIR)" "$(DESTDIR)$(dir $(COMPATDIR))" 2>/dev/null

# pbctl_VERSION_ARCH.deb in .build/deb (scripts/make-deb.sh: dpkg-deb, no debhelper).
deb: deps release
	scripts/make-deb.sh "$(VERSION)" .build/deb

clean:
	rm -rf .build
