"""Prints a weights file's header and sections: one line per rank with the
section's size, where its own bytes are, its checksum and first float32 values, and for a section with
a shared head the head's extent and first values (the format is in
runtime/include/shardc/format.h)."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
magic, version, world = data[:8], *struct.unpack_from("<II", data, 8)
print(f"magic {magic.decode()} version {version} world {world}")


def floats(off, size):
    n = min(size // 4, 8)
    return " ".join(f"{v:g}" for v in struct.unpack_from(f"<{n}f", data, off))


for r in range(world):
    off, size, checksum, shared_off, shared, _ = struct.unpack_from(
        "<QQQQQQ", data, 64 + 48 * r)
    line = f"section {r}: {size} B at {off} checksum {checksum:#018x}"
    if shared:
        line += (f" head {shared} B at {shared_off} floats "
                 f"{floats(shared_off, shared)};")
    print(f"{line} floats {floats(off, size - shared)}")
