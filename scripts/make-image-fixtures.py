#!/usr/bin/env python3
"""Writes the image fixtures of Tests/ImagesTests/Fixtures (run by hand when they change; the output is
committed). Every image is made here: ImageMagick's `convert` (Debian's imagemagick) draws and converts,
and this script crafts what ImageMagick does not write (EXIF orientations, RLE4, top-down and V4 BMP,
32-bit BMP without masks, a tiny ICC profile, decompression bombs, broken files).

Beside each image F, expected/F.png is what ImageMagick decodes F to (PNG32, or PNG64 for 16 bits): the
independent answer the Swift and C decoders are compared with. Nothing is fetched from the network."""
import os
import shutil
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "ImagesTests", "Fixtures")
EXPECTED = os.path.join(OUT, "expected")
WORK = os.path.join(OUT, ".work")


def convert(*args):
    # No creation and modification dates in PNG text chunks: the same script makes the same bytes.
    subprocess.run(["convert", "-define", "png:exclude-chunk=date,time", *args], check=True)


def path(name):
    return os.path.join(OUT, name)


def work(name):
    return os.path.join(WORK, name)


def expect(name, depth=8, frame=0, extra=()):
    prefix = "PNG64:" if depth == 16 else "PNG32:"
    convert(path(name) + "[%d]" % frame, *extra, prefix + os.path.join(EXPECTED, name + ".png"))


def icc_profile():
    """A minimal valid ICC v2 display profile (RGB, XYZ connection space) with a description tag: what
    libpng, libjpeg, libwebp and ImageMagick accept; made here, so no one's profile is copied."""
    desc = b"desc" + b"\0" * 4 + struct.pack(">I", 12) + b"pbctl test\0\0" + b"\0" * 12 + b"\0" * 67
    tags = [(b"desc", desc)]
    table = struct.pack(">I", len(tags))
    offset = 128 + 4 + 12 * len(tags)
    body = b""
    for signature, data in tags:
        table += signature + struct.pack(">II", offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    size = 128 + len(table) + len(body)
    header = struct.pack(">I4sI4s4s4s", size, b"none", 0x02100000, b"mntr", b"RGB ", b"XYZ ")
    header += struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"APPL" + struct.pack(">I", 0) + b"none" + b"none"
    header += b"\0" * 8 + struct.pack(">I", 0) + struct.pack(">iii", 63190, 65536, 54061) + b"none" + b"\0" * 16 + b"\0" * 28
    assert len(header) == 128, len(header)
    return header + table + body


def exif_app1(orientation):
    """An APP1 segment holding only an EXIF orientation (a little-endian TIFF structure, one IFD entry)."""
    tiff = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", 1) + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0)
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def with_exif(jpeg, orientation):
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + exif_app1(orientation) + jpeg[2:]


def bmp_rows(data):
    offset, = struct.unpack("<I", data[10:14])
    width, height = struct.unpack("<ii", data[18:26])
    bpp, = struct.unpack("<H", data[28:30])
    stride = (width * bpp + 31) // 32 * 4
    return offset, width, height, bpp, stride


def bmp_header(width, height, bpp, compression, image_size, colours, pixel_offset, extra=b""):
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bpp, compression, image_size, 2835, 2835, colours, 0)
    return b"BM" + struct.pack("<IHHI", pixel_offset + image_size, 0, 0, pixel_offset) + info + extra


def top_down(name, source):
    """A 24-bit BMP with a negative height: rows stored top first."""
    data = open(source, "rb").read()
    offset, width, height, bpp, stride = bmp_rows(data)
    rows = [data[offset + stride * r: offset + stride * (r + 1)] for r in range(height)]
    out = bytearray(data[:offset]) + b"".join(reversed(rows))
    struct.pack_into("<i", out, 22, -height)
    open(path(name), "wb").write(out)


def v4_from_v5(name, source):
    """BITMAPV4HEADER (108 bytes): a V5 file without its last 16 header bytes."""
    data = open(source, "rb").read()
    assert struct.unpack("<I", data[14:18])[0] == 124
    offset = struct.unpack("<I", data[10:14])[0]
    out = bytearray(data[:14 + 108] + data[14 + 124:])
    struct.pack_into("<I", out, 14, 108)
    struct.pack_into("<I", out, 10, offset - 16)
    struct.pack_into("<I", out, 2, len(out))
    open(path(name), "wb").write(out)


def bmp32_plain(name, rgba_png, keep_alpha):
    """32-bit BI_RGB with a 40-byte header: the fourth byte alpha (as browsers read it when some pixel
    sets it) or all zero (padding: opaque)."""
    raw = subprocess.run(["convert", rgba_png, "-depth", "8", "rgba:-"], check=True, capture_output=True).stdout
    width, height = map(int, subprocess.run(["identify", "-format", "%w %h", rgba_png], check=True, capture_output=True, text=True).stdout.split())
    rows = []
    for y in reversed(range(height)):
        row = bytearray()
        for x in range(width):
            r, g, b, a = raw[4 * (y * width + x): 4 * (y * width + x) + 4]
            row += bytes([b, g, r, a if keep_alpha else 0])
        rows.append(bytes(row))
    pixels = b"".join(rows)
    open(path(name), "wb").write(bmp_header(width, height, 32, 0, len(pixels), 0, 54) + pixels)


def bmp_rle4(name, delta):
    """RLE4 by hand (ImageMagick writes only RLE8): runs of two alternating colours, absolute runs (one
    with a pad byte), and with `delta` a delta that skips pixels and an end of bitmap before the last row
    (the pixels skipped stay transparent; ImageMagick refuses such a file, so it has no expected PNG)."""
    palette = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (255, 255, 255)]
    width, height = 16, 6
    rle = bytearray()
    rle += bytes([16, 0x12, 0, 0])                              # row 0 (bottom): 16 pixels alternating 1, 2
    rle += bytes([0, 6, 0x34, 0x53, 0x21, 0, 10, 0x44, 0, 0])   # row 1: absolute 3,4,5,3,2,1 (+ pad), 10 of 4
    if delta:
        rle += bytes([4, 0x55, 0, 2, 4, 1, 8, 0x11, 0, 0])      # row 2: 4 of 5, delta (+4, +1) to row 3 x 8, 8 of 1
        rle += bytes([16, 0x30, 0, 0])                          # row 4: 16 alternating 3, 0
        rle += bytes([5, 0x22, 0, 1])                           # row 5: 5 of 2, end of bitmap
    else:
        rle += bytes([0, 16, 0x01, 0x23, 0x45, 0x54, 0x32, 0x10, 0x01, 0x23, 0, 0])  # row 2: absolute 16
        rle += bytes([16, 0x30, 0, 0, 16, 0x05, 0, 0, 16, 0x22, 0, 1])             # rows 3-5, end of bitmap
    pal = b"".join(bytes([b, g, r, 0]) for r, g, b in palette) + b"\0" * 4 * (16 - len(palette))
    open(path(name), "wb").write(bmp_header(width, height, 4, 2, len(rle), 16, 54 + len(pal), pal) + rle)


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bomb(width, height):
    """A valid-looking PNG header declaring width x height, with one small IDAT: a decoder that trusts
    the header allocates width*height*4 bytes."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(b"\0" * 64)) + png_chunk(b"IEND", b"")


def bombs():
    """Small files declaring huge images; each must be refused by the pixel cap before allocation."""
    os.makedirs(path("bombs"), exist_ok=True)
    def put(name, data):
        open(os.path.join(OUT, "bombs", name), "wb").write(data)
    put("png-100000x100000.png", png_bomb(100000, 100000))
    # JPEG: the baseline fixture with its SOF0 size patched to 65000 x 65000.
    jpeg = bytearray(open(path("jpeg-baseline.jpg"), "rb").read())
    sof = jpeg.index(b"\xff\xc0")
    struct.pack_into(">HH", jpeg, sof + 5, 65000, 65000)
    put("jpeg-65000x65000.jpg", bytes(jpeg))
    # GIF: logical screen and frame 65535 x 65535, a few bytes of LZW.
    gif = b"GIF89a" + struct.pack("<HH", 65535, 65535) + bytes([0x80, 0, 0]) + b"\0\0\0\xff\xff\xff"
    gif += b"\x2c" + struct.pack("<HHHH", 0, 0, 65535, 65535) + b"\0" + b"\x02\x02\x44\x01\x00\x3b"
    put("gif-65535x65535.gif", gif)
    # BMP: 24 bits, 50000 x -50000 (top-down), no pixel data.
    put("bmp-50000x50000.bmp", bmp_header(50000, -50000, 24, 0, 0, 0, 54))
    # TIFF: 100000 x 100000 8-bit gray, one strip of 16 bytes.
    entries = [(256, 4, 1, 100000), (257, 4, 1, 100000), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8), (277, 3, 1, 1), (278, 4, 1, 100000), (279, 4, 1, 16)]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) + struct.pack("<I", 0)
    put("tiff-100000x100000.tif", b"II*\0" + struct.pack("<I", 24) + b"\0" * 16 + ifd)
    # WebP: a lossless (VP8L) header of 16384 x 16384, the largest WebP allows, and a VP8X canvas of
    # 60000 x 60000 (libwebp itself refuses a canvas of 2^32 pixels or more).
    vp8l = b"\x2f" + struct.pack("<I", (16383) | (16383 << 14) | (1 << 28)) + b"\0" * 16
    put("webp-16384x16384.webp", b"RIFF" + struct.pack("<I", 4 + 8 + len(vp8l)) + b"WEBP" + b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l)
    # An animation (VP8X with ANIM) whose canvas is 60000 x 60000 and whose one frame is a 40 x 30
    # lossless image: the frame is small, the canvas the animation decoder would allocate is not.
    real = open(path("webp-lossless.webp"), "rb").read()
    assert real[12:16] == b"VP8L"
    frame = real[12:]
    def chunk(kind, data):
        return kind + struct.pack("<I", len(data)) + data + b"\0" * (len(data) % 2)
    side = (60000 - 1).to_bytes(3, "little")
    vp8x = chunk(b"VP8X", bytes([0x12, 0, 0, 0]) + side + side)
    anim = chunk(b"ANIM", b"\0\0\0\0" + struct.pack("<H", 0))
    anmf = chunk(b"ANMF", b"\0" * 6 + (40 - 1).to_bytes(3, "little") + (30 - 1).to_bytes(3, "little") + (100).to_bytes(3, "little") + b"\0" + frame)
    body = b"WEBP" + vp8x + anim + anmf
    put("webp-canvas-60000x60000.webp", b"RIFF" + struct.pack("<I", len(body)) + body)


def main():
    if not shutil.which("convert"):
        sys.exit("make-image-fixtures: ImageMagick's convert is missing (apt-get install imagemagick)")
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(EXPECTED)
    os.makedirs(WORK)
    # The sources: a 40x30 gradient with a square and a disc, opaque and with an alpha ramp; a posterised
    # one of few colours with a transparent corner (for palettes: GIF, 8-bit BMP and TIFF).
    scene = ["-size", "40x30", "xc:", "-sparse-color", "bilinear", "0,0 red 39,0 yellow 0,29 blue 39,29 lime",
             "-fill", "white", "-draw", "rectangle 5,5 12,12", "-fill", "black", "-draw", "circle 28,18 33,18"]
    convert(*scene, "PNG24:" + path("png-rgb.png"))
    convert(*scene, "(", "-size", "30x40", "gradient:white-gray10", "-rotate", "90", ")", "-alpha", "off",
            "-compose", "CopyOpacity", "-composite", "PNG32:" + path("png-rgba.png"))
    convert(*scene, "+dither", "-colors", "60", "-fill", "none", "-draw", "color 0,0 floodfill",
            "-region", "10x8+30+0", "-alpha", "transparent", "+region", "PNG32:" + work("palette.png"))
    convert(work("palette.png"), "-fill", "none", "-draw", "rectangle 30,0 39,7", "PNG32:" + work("palette.png"))
    open(work("test.icc"), "wb").write(icc_profile())

    # PNG variants.
    convert(work("palette.png"), "PNG8:" + path("png-palette-trns.png"))
    convert(path("png-rgb.png"), "-colorspace", "gray", "PNG8:" + path("png-gray8.png"))
    convert(path("png-rgb.png"), "-colorspace", "gray", "-depth", "8", "-define", "png:color-type=0", path("png-gray.png"))
    convert(path("png-rgba.png"), "-colorspace", "gray", "-define", "png:color-type=4", path("png-gray-alpha.png"))
    convert(path("png-rgb.png"), "-monochrome", "-define", "png:bit-depth=1", "-define", "png:color-type=0", path("png-gray1.png"))
    convert(path("png-rgba.png"), "-depth", "16", "PNG64:" + path("png-rgba16.png"))
    convert(path("png-rgb.png"), "-depth", "16", "PNG48:" + path("png-rgb16.png"))
    convert(path("png-rgba.png"), "-interlace", "PNG", "PNG32:" + path("png-interlaced.png"))
    convert(path("png-rgb.png"), "-profile", work("test.icc"), "PNG24:" + path("png-icc.png"))

    # JPEG variants.
    convert(path("png-rgb.png"), "-quality", "92", path("jpeg-baseline.jpg"))
    convert(path("png-rgb.png"), "-quality", "92", "-interlace", "JPEG", path("jpeg-progressive.jpg"))
    convert(path("png-rgb.png"), "-colorspace", "gray", "-quality", "92", path("jpeg-gray.jpg"))
    convert(path("png-rgb.png"), "-colorspace", "CMYK", "-quality", "95", path("jpeg-cmyk.jpg"))
    convert(path("png-rgb.png"), "-quality", "92", "-profile", work("test.icc"), path("jpeg-icc.jpg"))
    # EXIF orientations 1 to 8 on one asymmetric picture (an L in a corner), and what each shows as.
    convert("-size", "16x12", "xc:navy", "-fill", "orange", "-draw", "rectangle 1,1 3,9", "-draw", "rectangle 1,8 8,9",
            "-quality", "100", "-sampling-factor", "1x1", work("orient.jpg"))
    base = open(work("orient.jpg"), "rb").read()
    for n in range(1, 9):
        name = "jpeg-orientation-%d.jpg" % n
        open(path(name), "wb").write(with_exif(base, n))
        expect(name, extra=("-auto-orient",))

    # GIF variants: transparency, interlace, GIF87a, an animation of three frames.
    convert(work("palette.png"), path("gif-transparent.gif"))
    convert(work("palette.png"), "-interlace", "GIF", path("gif-interlaced.gif"))
    convert(path("png-rgb.png"), "+dither", "-colors", "32", "GIF87:" + path("gif87a.gif"))
    convert("-delay", "10", work("palette.png"), "(", work("palette.png"), "-flop", ")", "(", work("palette.png"), "-flip", ")",
            "-loop", "0", path("gif-animated.gif"))

    # WebP variants (ImageMagick through libwebp).
    convert(path("png-rgba.png"), "-quality", "90", path("webp-lossy.webp"))
    convert(path("png-rgba.png"), "-define", "webp:lossless=true", "-define", "webp:exact=true", path("webp-lossless.webp"))
    convert(path("png-rgb.png"), "-define", "webp:lossless=true", "-profile", work("test.icc"), path("webp-icc.webp"))
    convert("-delay", "10", path("png-rgba.png"), "(", path("png-rgba.png"), "-flop", ")", "(", path("png-rgba.png"), "-flip", ")",
            "-define", "webp:lossless=true", "-loop", "0", path("webp-animated.webp"))

    # BMP variants.
    convert(path("png-rgb.png"), "-monochrome", "BMP3:" + path("bmp-1bit.bmp"))
    convert(path("png-rgb.png"), "+dither", "-colors", "16", "BMP3:" + path("bmp-4bit.bmp"))
    convert(work("palette.png"), "-background", "white", "-alpha", "remove", "+dither", "-colors", "200", "BMP3:" + path("bmp-8bit.bmp"))
    convert(work("palette.png"), "-background", "white", "-alpha", "remove", "-compress", "RLE", "BMP3:" + path("bmp-rle8.bmp"))
    bmp_rle4("bmp-rle4.bmp", delta=False)
    bmp_rle4("bmp-rle4-delta.bmp", delta=True)
    convert(path("png-rgb.png"), "-define", "bmp:subtype=RGB565", "BMP:" + path("bmp-565.bmp"))
    convert(path("png-rgb.png"), "-define", "bmp:subtype=RGB555", "BMP:" + path("bmp-555.bmp"))
    convert(path("png-rgba.png"), "-define", "bmp:subtype=ARGB4444", "BMP:" + path("bmp-argb4444.bmp"))
    convert(path("png-rgb.png"), "BMP3:" + path("bmp-24bit.bmp"))
    convert(path("png-rgb.png"), "BMP2:" + path("bmp-os2.bmp"))
    convert(path("png-rgba.png"), "BMP:" + path("bmp-v5-alpha.bmp"))
    v4_from_v5("bmp-v4-alpha.bmp", path("bmp-v5-alpha.bmp"))
    top_down("bmp-topdown.bmp", path("bmp-24bit.bmp"))
    bmp32_plain("bmp-32-alpha-bi-rgb.bmp", path("png-rgba.png"), True)
    bmp32_plain("bmp-32-zero-fourth-byte.bmp", path("png-rgba.png"), False)

    # TIFF variants.
    convert(path("png-rgb.png"), "-compress", "none", path("tiff-none.tif"))
    convert(path("png-rgb.png"), "-compress", "RLE", path("tiff-packbits.tif"))
    convert(path("png-rgb.png"), "-compress", "LZW", path("tiff-lzw.tif"))
    convert(path("png-rgba.png"), "-compress", "LZW", "-define", "tiff:predictor=2", path("tiff-lzw-predictor-rgba.tif"))
    convert(path("png-rgb.png"), "-compress", "Zip", path("tiff-deflate.tif"))
    convert(path("png-rgba.png"), "-compress", "none", "-endian", "MSB", path("tiff-big-endian-rgba.tif"))
    convert(path("png-rgb.png"), "-colorspace", "gray", "-compress", "LZW", path("tiff-gray.tif"))
    convert(work("palette.png"), "-background", "white", "-alpha", "remove", "-type", "Palette", "-compress", "LZW", path("tiff-palette.tif"))
    convert(path("png-rgb.png"), "-monochrome", "-compress", "none", path("tiff-bilevel.tif"))
    convert(path("png-rgba.png"), "-depth", "16", "-compress", "LZW", "-define", "tiff:predictor=2", path("tiff-rgba16.tif"))
    convert(path("png-rgba.png"), "-define", "tiff:alpha=associated", "-compress", "none", path("tiff-associated-alpha.tif"))
    convert(path("png-rgb.png"), "(", path("png-rgb.png"), "-flip", ")", "-compress", "LZW", path("tiff-two-pages.tif"))
    convert(path("png-rgb.png"), "-profile", work("test.icc"), "-compress", "LZW", path("tiff-icc.tif"))
    convert(path("png-rgb.png"), "-define", "tiff:rows-per-strip=7", "-compress", "RLE", path("tiff-strips.tif"))
    convert(path("png-rgb.png"), "-colorspace", "CMYK", "-compress", "LZW", path("tiff-cmyk.tif"))
    convert(path("png-rgb.png"), "-define", "tiff:tile-geometry=16x16", path("tiff-tiled.tif"))

    for name in sorted(os.listdir(OUT)):
        full = path(name)
        if not os.path.isfile(full) or name.startswith("jpeg-orientation-") or name in ("tiff-tiled.tif", "bmp-rle4-delta.bmp"):
            continue
        expect(name, depth=16 if "16" in name else 8)
    open(path("test.icc"), "wb").write(open(work("test.icc"), "rb").read())
    bombs()
    shutil.rmtree(WORK)
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs)
    print("make-image-fixtures: %d files, %d bytes" % (sum(len(fs) for _, _, fs in os.walk(OUT)), total), file=sys.stderr)


main()
