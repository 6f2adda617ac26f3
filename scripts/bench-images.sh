#!/usr/bin/env bash
# Image conversion against ImageMagick (issue "Images as first-class representations"): a 3840x2160
# screenshot-like PNG (a gradient desktop, a window of text, coloured panels; made here with
# ImageMagick) converted to JPEG and to BMP, each a whole process: `pbctl-bench image-convert IN OUT`
# (ImageCodec.convert, the code a paste --as would run) beside `convert IN OUT`, with hyperfine, and the
# peak memory of each as a multiple of the decoded image (3840 x 2160 x 4 bytes of RGBA). Prints a
# Markdown section ("## Images") for docs/benchmarks.md (`make bench`, section images).
#
#   scripts/bench-images.sh PBCTL_BENCH_BINARY
#
# Targets: at most half of ImageMagick's time; peak memory at most 3x the decoded image.
# Environment: BENCH_RUNS (hyperfine runs, default 10).
set -euo pipefail
BENCH=${1:?usage: scripts/bench-images.sh PBCTL_BENCH_BINARY}
[ -x "$BENCH" ] || { echo "bench-images: $BENCH is not an executable" >&2; exit 1; }
for tool in hyperfine python3 convert identify; do
    command -v $tool >/dev/null || { echo "bench-images: $tool is missing (make bench installs it)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-images: GNU time is missing (apt-get install time)" >&2; exit 1; }
runs=${BENCH_RUNS:-10}
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
work=$(mktemp -d "$base/pbctl-bench-images.XXXXXX")
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$work"' EXIT
width=3840 height=2160
decoded=$((width * height * 4))

echo "bench-images: making the ${width}x${height} screenshot" >&2
# Text for the window: the first 60 lines of a licence every Debian system has (inline: ImageMagick's
# default policy refuses @file; % is its escape character).
text=$(head -60 /usr/share/common-licenses/GPL-3 | sed 's/%/%%/g')
convert -size ${width}x${height} gradient:'#2b5876-#4e4376' \
    -fill '#f4f4f4' -draw 'rectangle 240,160 3600,2000' -fill '#3b6ea5' -draw 'rectangle 240,160 3600,220' \
    -fill '#e8eef6' -draw 'rectangle 240,220 700,2000' \
    -fill '#d9534f' -draw 'rectangle 2900,400 3500,700' -fill '#5cb85c' -draw 'rectangle 2900,760 3500,1060' \
    -fill '#f0ad4e' -draw 'circle 3200,1400 3400,1400' \
    -font DejaVu-Sans -fill white -pointsize 30 -annotate +270+202 'pbctl — image benchmark' \
    -fill '#222222' -pointsize 26 -annotate +740+280 "$text" \
    -fill '#333355' -pointsize 24 -annotate +270+300 $'Files\nDocuments\nPictures\nMusic\nVideos\nDownloads' \
    -define png:exclude-chunk=date,time PNG24:"$work/screen.png"
size=$(stat -c %s "$work/screen.png")

# Both must work, and agree on what they made.
for ext in jpg bmp; do
    "$BENCH" image-convert "$work/screen.png" "$work/pbctl.$ext"
    convert "$work/screen.png" -quality 90 "$work/im.$ext"
    [ "$(identify -format '%wx%h' "$work/pbctl.$ext")" = "${width}x${height}" ] \
        || { echo "bench-images: pbctl's $ext is not ${width}x${height}" >&2; exit 1; }
done
psnr=$(compare -metric PSNR "$work/screen.png" "$work/pbctl.jpg" null: 2>&1 || true)
same_bmp=$(compare -metric AE "$work/screen.png" "$work/pbctl.bmp" null: 2>&1 || true)

median() {
    python3 - "$1" "$2" <<'PY'
import json, statistics, sys
print(repr(statistics.median(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["times"])))
PY
}
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
ms() { awk -v s="$1" 'BEGIN { printf "%.0f", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

rows=""
for ext in jpg bmp; do
    echo "bench-images: PNG -> $ext" >&2
    hyperfine -N --output=pipe --warmup 2 --runs "$runs" --export-json "$work/$ext.json" \
        "$BENCH image-convert $work/screen.png $work/out-pbctl.$ext" "convert $work/screen.png -quality 90 $work/out-im.$ext" >/dev/null
    tp=$(median "$work/$ext.json" 0); ti=$(median "$work/$ext.json" 1)
    mp=$(rss "$BENCH" image-convert "$work/screen.png" "$work/rss.$ext"); mi=$(rss convert "$work/screen.png" -quality 90 "$work/rss-im.$ext")
    sp=$(stat -c %s "$work/pbctl.$ext"); si=$(stat -c %s "$work/im.$ext")
    time_ratio=$(ratio "$ti" "$tp")
    mem_ratio=$(awk -v k="$mp" -v d="$decoded" 'BEGIN { printf "%.2f", k * 1024 / d }')
    mem_im=$(awk -v k="$mi" -v d="$decoded" 'BEGIN { printf "%.2f", k * 1024 / d }')
    time_ok=$(awk -v r="$time_ratio" 'BEGIN { print (r >= 2) ? "met" : "**not met**" }')
    mem_ok=$(awk -v r="$mem_ratio" 'BEGIN { print (r <= 3) ? "met" : "**not met**" }')
    name=$([ $ext = jpg ] && echo "PNG → JPEG (quality 90)" || echo "PNG → BMP")
    rows+="| $name | $(ms "$tp") ms | $(ms "$ti") ms | **${time_ratio}×** ($time_ok) | $((mp / 1024)) MiB = **${mem_ratio}×** ($mem_ok) | $((mi / 1024)) MiB = ${mem_im}× | $((sp / 1000)) kB | $((si / 1000)) kB |"$'\n'
done

echo "## Images"
echo
echo "Command: scripts/bench-images.sh (section \`images\` of \`make bench\`), run $(date -u '+%Y-%m-%d %H:%M UTC')."
echo
echo "- Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, $(uname -sr)"
echo "- Input: a ${width}x${height} screenshot-like PNG ($((size / 1000)) kB, RGB; a gradient desktop, a window of text, coloured panels) made by the script with ImageMagick"
echo "- pbctl: \`pbctl-bench image-convert IN OUT\` (the static release build; \`ImageCodec.convert\`, libpng, libjpeg-turbo, BMP in Swift);"
echo "  ImageMagick: \`convert IN -quality 90 OUT\` ($(convert -version | head -1 | cut -d' ' -f2-3), OpenMP on every core)"
echo "- hyperfine $(hyperfine --version | awk '{print $2}'), $runs runs after 2 warm-ups, \`-N\`; medians. Peak memory: \`/usr/bin/time -f %M\`, as a multiple of the decoded image ($((decoded / 1000000)) MB of RGBA)"
echo
echo "| conversion | pbctl | ImageMagick | ImageMagick ÷ pbctl (target ≥ 2) | pbctl peak memory (target ≤ 3×) | ImageMagick peak memory | pbctl output | ImageMagick output |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s' "$rows"
echo
echo "pbctl's JPEG against the PNG: PSNR ${psnr} dB (ImageMagick's \`compare\`); its BMP differs from the PNG in ${same_bmp} pixels."
echo "pbctl writes BMP at 32 bits a pixel (BITMAPV5HEADER with an alpha mask, what Windows and WSLg read with"
echo "alpha); ImageMagick writes an opaque image at 24. pbctl's JPEG is larger than ImageMagick's because it does"
echo "not fit Huffman tables to the image (libjpeg's optimize_coding keeps every coefficient for a second pass: here"
echo "46 ms and 61 MiB became 78 ms and 86 MiB, for a file 18% smaller)."
echo
