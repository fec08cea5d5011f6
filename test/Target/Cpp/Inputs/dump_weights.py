"""Prints a weights file's header and sections: one line per rank with the
section's size, checksum and first float32 values (the format is in
runtime/include/shardc/format.h)."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
magic, version, world = data[:8], *struct.unpack_from("<II", data, 8)
print(f"magic {magic.decode()} version {version} world {world}")
for r in range(world):
    off, size, checksum, _ = struct.unpack_from("<QQQQ", data, 64 + 32 * r)
    n = min(size // 4, 8)
    values = struct.unpack_from(f"<{n}f", data, off)
    print(f"section {r}: {size} B checksum {checksum:#018x} "
          f"floats {' '.join(f'{v:g}' for v in values)}")
