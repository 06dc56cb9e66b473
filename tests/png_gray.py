#!/usr/bin/env python3
"""PNG helpers for the grayscale CLI tests, with nothing but zlib.

  png_gray.py make PATH WIDTH HEIGHT CHANNELS SEED   random 8-bit PNG (1..4 channels)
  png_gray.py check IN.png OUT.png                   OUT is IN's gray image: exact,
                                                     either neighbour at a tie
Exit 0 on success, 1 with one line saying what differs."""
import random
import struct
import sys
import zlib

COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type


def write_png(path, w, h, ch, data):
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    stride = w * ch
    raw = b"".join(b"\0" + data[y * stride:(y + 1) * stride] for y in range(h))
    header = struct.pack(">IIBBBBB", w, h, 8, COLOR_TYPE[ch], 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def read_png(path):
    blob = open(path, "rb").read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat = 8, b""
    while pos < len(blob):
        n, kind = struct.unpack(">I4s", blob[pos:pos + 8])
        body = blob[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    if depth != 8 or interlace:
        raise ValueError(f"{path}: only 8-bit, non-interlaced PNGs are read here")
    ch = {v: k for k, v in COLOR_TYPE.items()}[ctype]
    raw, stride = zlib.decompress(idat), w * ch
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        base = y * (stride + 1)
        kind, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            c = prev[i - ch] if i >= ch else 0
            pred = [0, a, prev[i], (a + prev[i]) // 2, paeth(a, prev[i], c)][kind]
            line[i] = (line[i] + pred) & 0xFF
        out += line
        prev = line
    return w, h, ch, bytes(out)


def main(argv):
    if argv[1] == "make":
        path, w, h, ch, seed = argv[2], *map(int, argv[3:7])
        rng = random.Random(seed)
        write_png(path, w, h, ch, bytes(rng.randrange(256) for _ in range(w * h * ch)))
        return 0
    w, h, ch, src = read_png(argv[2])
    gw, gh, gch, gray = read_png(argv[3])
    if (gw, gh, gch) != (w, h, 1):
        print(f"output is {gw}x{gh}x{gch}, expected {w}x{h}x1")
        return 1
    for i in range(w * h):
        px = src[i * ch:(i + 1) * ch]
        r, g, b = (px[0],) * 3 if ch <= 2 else px[:3]  # stb: gray -> r = g = b
        t = 299 * r + 587 * g + 114 * b
        ref = (t + 500) // 1000
        if gray[i] != ref and not (t % 1000 == 500 and gray[i] == ref - 1):
            print(f"pixel {i % w},{i // w}: gray {gray[i]}, expected {ref} (rgb {r} {g} {b})")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
