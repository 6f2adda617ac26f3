#!/usr/bin/env bash
# make deb: pbctl_VERSION_ARCH.deb with dpkg-deb alone (no debhelper): the static release binary, its
# pbcopy/pbpaste links, its xclip/xsel/wl-copy/wl-paste links in /usr/lib/pbctl/compat, man pages, completions, the systemd user unit and the autostart entry in their
# Debian places (from `make install DESTDIR=… PREFIX=/usr`), gzipped man pages and changelog, a
# copyright file, md5sums, and a control file with no Depends (the binary needs no shared library) and
# Built-Using naming the libraries linked in.
#
#   scripts/make-deb.sh VERSION OUTPUT-DIRECTORY
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: make-deb.sh VERSION OUTPUT-DIRECTORY}
out=${2:?usage: make-deb.sh VERSION OUTPUT-DIRECTORY}
arch=$(dpkg --print-architecture)
stage=$(mktemp -d "${TMPDIR:-/tmp}/pbctl-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
make --no-print-directory install-files DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc >/dev/null

# Policy: a link within /usr is relative.
for tool in xclip xsel wl-copy wl-paste; do ln -sfn ../../../bin/pbctl "$stage/usr/lib/pbctl/compat/$tool"; done

doc="$stage/usr/share/doc/pbctl"
# Debian's places: man pages and the changelog gzipped (-n: no timestamp, reproducible).
gzip -9n "$stage"/usr/share/man/man1/*.1
for page in pbcopy pbpaste; do
    rm -f "$stage/usr/share/man/man1/$page.1.gz"
    ln -s pbctl.1.gz "$stage/usr/share/man/man1/$page.1.gz"
done
rm -f "$doc"/*.md
install -m 0644 README.md "$doc/README.md"
gzip -9n "$doc/README.md"
{
    echo "pbctl ($version) unstable; urgency=medium"
    echo
    git log -n 20 --format='%s' 2>/dev/null | cut -c1-70 | sed 's/^/  * /' || echo "  * Release $version."
    echo
    echo " -- pbctl maintainers <maintainers@pbctl.invalid>  $(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
} > "$doc/changelog"
gzip -9n "$doc/changelog"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pbctl
Comment: The executable is linked statically with the GNU C library (LGPL-2.1+), OpenSSL 3 (Apache-2.0), zlib (Zlib), libpng
 (libpng), libjpeg-turbo (IJG/BSD-3-Clause/Zlib), libwebp (BSD-3-Clause), libdeflate (MIT), libxcb,
 libXau and libXdmcp (X11/MIT) and the Swift runtime and Foundation (Apache-2.0 with Runtime Library
 Exception); Built-Using in the package's control file names their source packages.

Files: *
Copyright: 2026 the pbctl authors
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file except in
 compliance with the License. You may obtain a copy of the License at
 .
     http://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software distributed under the License is
 distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or
 implied. See the License for the specific language governing permissions and limitations under the
 License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be found in
 "/usr/share/common-licenses/Apache-2.0".
COPYRIGHT
# The binary is static on purpose (README): say so to lintian.
mkdir -p "$stage/usr/share/lintian/overrides"
cat > "$stage/usr/share/lintian/overrides/pbctl" <<'OVERRIDES'
# pbctl is built as a fully static executable so that it starts in the time of /bin/true and runs
# anywhere; the libraries it contains are named in Built-Using.
pbctl: statically-linked-binary [usr/bin/pbctl]
pbctl: embedded-library zlib [usr/bin/pbctl]
pbctl: embedded-library libpng [usr/bin/pbctl]
pbctl: embedded-library libjpeg [usr/bin/pbctl]
OVERRIDES
chmod 0644 "$stage/usr/share/lintian/overrides/pbctl"

built_using=$(dpkg-query -W -f='${source:Package} (= ${source:Version}), ' libc6-dev zlib1g-dev libssl-dev libpng-dev libjpeg62-turbo-dev libwebp-dev libdeflate-dev libxcb1-dev libxcb-xfixes0-dev libxau-dev libxdmcp-dev 2>/dev/null | sed 's/, $//')
# Debian ships binaries stripped (debug symbols belong in a -dbgsym package); Swift's reflection
# metadata lives in allocated sections, which stripping keeps.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/pbctl"
mkdir -p "$stage/DEBIAN"
echo /etc/xdg/autostart/pbctl-daemon.desktop > "$stage/DEBIAN/conffiles"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: pbctl
Version: $version
Architecture: $arch
Maintainer: pbctl maintainers <maintainers@pbctl.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Section: utils
Priority: optional
Built-Using: $built_using
Description: clipboard broker: one copy offers Markdown, HTML, RTF and text
 pbctl brings the macOS pasteboard model to Linux. A copy offers every form
 its content can honestly take (Markdown, HTML, RTF, plain text, images);
 each paste gets the richest form the pasting side can use, converting
 when nothing offered fits. It works with X11 selections, with a private
 store when there is no display, and as pbcopy and pbpaste. pbctl daemon
 keeps the clipboard when applications exit.
CONTROL
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 0755 {} +
mkdir -p "$out"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/pbctl_${version}_${arch}.deb" >/dev/null
echo "$out/pbctl_${version}_${arch}.deb"
