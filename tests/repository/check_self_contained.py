#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Fails when a file of the repository reaches outside it for data (run by CTest).

Everything the tests, scripts and docs need lives in the repository (test data in
tests/data/), so no tracked file may name a `shared` folder beside the checkout: its
relative path from the source tree, its absolute path on our own machines, an
environment variable pointing there, or its sub-folders (device/, models/, notes/,
hooks/, onnx-node-tests/). The files are `git ls-files` when SOURCE_DIR is a git work
tree, else a walk of SOURCE_DIR without build trees and installed packages.

Usage: check_self_contained.py SOURCE_DIR
Prints each offending FILE:LINE and exits 1; prints how many files it read and exits 0
when none names the folder.
"""
import os
import re
import subprocess
import sys

# Each pattern is spelled so that it does not match its own text: this file is
# tracked too, and must pass its own check.
PATTERNS = [
    re.compile(rb"[.][.]/shared\b"),
    re.compile(rb"/work/[s]hared\b"),
    re.compile(rb"VKSERVE_[S]HARED_DIR"),
    re.compile(rb"(?<![\w./-])[s]hared/(device|models|notes|hooks|onnx-node-tests)\b"),
]

# Not part of the source when git cannot tell: build trees and installed packages.
WALK_SKIPPED_DIRS = {".git", "node_modules", "__pycache__"}


def tracked_files(root):
    """Paths relative to root: git's index, or a walk when git or the repository is absent."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        if out:
            return [p.decode() for p in out.split(b"\0") if p]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if d not in WALK_SKIPPED_DIRS and
                             not (rel == "." and (d.startswith("build") or d.startswith("."))))
        files.extend(os.path.normpath(os.path.join(rel, f)) for f in sorted(filenames))
    return files


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    files = tracked_files(root)
    if not files:
        sys.exit(f"check_self_contained.py: no files under {root}")
    offences = []
    for rel in files:
        path = os.path.join(root, rel)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if not any(p.search(data) for p in PATTERNS):
            continue
        for number, line in enumerate(data.split(b"\n"), 1):
            if any(p.search(line) for p in PATTERNS):
                offences.append(f"{rel}:{number}: {line.decode(errors='replace').strip()[:160]}")
    if offences:
        print(f"{len(offences)} line(s) name the shared folder beside the checkout; "
              "the repository must hold what it needs (tests/data/):")
        print("\n".join(offences))
        return 1
    print(f"{len(files)} files read; none names a folder outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
