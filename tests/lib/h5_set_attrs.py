#!/usr/bin/python3
"""Set string root attributes of an HDF5 file in place (tests: an output made to look as if another
build, or other emulator sources, had written it).

    h5_set_attrs.py FILE NAME=VALUE [NAME=VALUE ...]
"""
import sys

import h5py


def main():
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__.strip())
    with h5py.File(sys.argv[1], "r+") as f:
        for a in sys.argv[2:]:
            k, v = a.split("=", 1)
            if k in f.attrs:
                del f.attrs[k]
            f.attrs.create(k, v, dtype=h5py.string_dtype())


if __name__ == "__main__":
    main()
