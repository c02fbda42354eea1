#!/usr/bin/python3
"""Rewrite a dike-emu checkpoint as if another build had written it: set its `builds` attribute
(and, with --source, its writer's `source_sha256`; with --format, its `checkpoint_format`) and
recompute the checksums that cover them (config_sha256, the trailer), as src/engine/checkpoint.c
computes them. For tests: a checkpoint "from another build" without building another binary.
Format 7 (its blobs are format 8's) had neither attribute: --format 7 removes both, and BUILDS
is then ignored.

    ckpt_set_builds.py IN OUT BUILDS [--source HEX] [--format N]
"""
import argparse
import hashlib
import struct

import h5py

TRAILER = b'\ndike-emu checkpoint image sha256='


def digest(parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(struct.pack('<Q', len(p)))
        h.update(p)
    return h.hexdigest()


def set_str(attrs, name, value):
    if name in attrs:
        del attrs[name]
    attrs.create(name, value, dtype=h5py.string_dtype())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('src')
    ap.add_argument('dst')
    ap.add_argument('builds')
    ap.add_argument('--source', help="the writer's source digest (default: keep the file's)")
    ap.add_argument('--format', type=int, help='checkpoint_format (default: keep the file\'s)')
    a = ap.parse_args()
    data = open(a.src, 'rb').read()
    tail = data.rfind(TRAILER)
    if tail < 0:
        ap.error('%s: no checkpoint trailer' % a.src)
    open(a.dst, 'wb').write(data[:tail])
    with h5py.File(a.dst, 'r+') as f:
        at = f.attrs
        fmt = int(at['checkpoint_format'])
        if fmt != 8:
            ap.error('%s: checkpoint format %d; this script knows format 8' % (a.src, fmt))
        text = lambda k: at[k].encode() if isinstance(at[k], str) else bytes(at[k])
        if a.format is not None:
            at.modify('checkpoint_format', a.format)
            fmt = a.format
        parts = [struct.pack('<i', fmt), text('config'), text('trace_sha256'), text('version')]
        if fmt >= 8:
            set_str(at, 'builds', a.builds)
            if a.source is not None:
                set_str(at, 'source_sha256', a.source)
            parts += [text('builds'), text('source_sha256')]
        else:
            for k in ('builds', 'source_sha256'):
                if k in at:
                    del at[k]
        at.modify('config_sha256', digest(parts))
    img = open(a.dst, 'rb').read()
    trailer = '\ndike-emu checkpoint image sha256=%s bytes=%020d\n' % (
        hashlib.sha256(struct.pack('<Q', len(img)) + img).hexdigest(), len(img))
    open(a.dst, 'ab').write(trailer.encode())


if __name__ == '__main__':
    main()
