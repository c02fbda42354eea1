#!/usr/bin/python3
"""Rewrite a dike-emu checkpoint as if other builds had run it: set its `builds` attribute and
recompute the checksums that cover it (config_sha256, the trailer), as src/engine/checkpoint.c
computes them. Tests only: a checkpoint "from another build" without building another binary.

    ckpt_set_builds.py IN OUT BUILDS [FORMAT]

FORMAT (default: the file's) rewrites the checkpoint_format attribute too, for the refusal of
another format.
"""
import hashlib
import struct
import sys

import h5py

TRAILER = b'\ndike-emu checkpoint image sha256='


def digest(parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(struct.pack('<Q', len(p)))
        h.update(p)
    return h.hexdigest()


def main():
    src, dst, builds = sys.argv[1], sys.argv[2], sys.argv[3]
    new_fmt = int(sys.argv[4]) if len(sys.argv) > 4 else None
    data = open(src, 'rb').read()
    tail = data.rfind(TRAILER)
    if tail < 0:
        sys.exit('%s: no checkpoint trailer' % src)
    open(dst, 'wb').write(data[:tail])
    with h5py.File(dst, 'r+') as f:
        a = f.attrs
        fmt = int(a['checkpoint_format'])
        if fmt != 8:
            sys.exit('%s: checkpoint format %d; this script knows format 8' % (src, fmt))
        text = lambda k: a[k].encode() if isinstance(a[k], str) else bytes(a[k])
        if new_fmt is not None:
            a.modify('checkpoint_format', struct.unpack('<i', struct.pack('<i', new_fmt))[0])
            fmt = new_fmt
        if 'builds' in a:
            del a['builds']
        a.create('builds', builds, dtype=h5py.string_dtype())
        a.modify('config_sha256', digest([struct.pack('<i', fmt), text('config'), text('trace_sha256'),
                                          text('version'), builds.encode()]))
    img = open(dst, 'rb').read()
    trailer = '\ndike-emu checkpoint image sha256=%s bytes=%020d\n' % (
        hashlib.sha256(struct.pack('<Q', len(img)) + img).hexdigest(), len(img))
    open(dst, 'ab').write(trailer.encode())


if __name__ == '__main__':
    main()
