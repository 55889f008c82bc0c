#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ccache for shaders: runs `GLSLC ARGS...` (a compile with -o OUT and
# -MD -MF DEPFILE, as shaders/CMakeLists.txt writes it) through a cache of
# SPIR-V keyed by glslc's version, the flags that shape code generation and
# the preprocessed source (so -D defines and every included file count, and
# checkout paths do not). CI builds three trees of the same shaders (ASan
# and fuzzing, TSan, Release), and most of a tree's shader time is glslc's
# optimizer on the cooperative-matrix shaders: a hit costs one
# preprocessing pass instead.
#
# Usage: glslc_cached.sh GLSLC ARGS...
# The cache is $VKSERVE_SPIRV_CACHE (default ~/.cache/vkserve-spirv; "off"
# compiles directly). It holds at most $VKSERVE_SPIRV_CACHE_FILES entries
# (default 4000, about 40 MB); past that the least recently used go. An
# entry is written under a temporary name and renamed, so concurrent builds
# never read half a file.
set -eu
glslc=$1
shift
cache=${VKSERVE_SPIRV_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/vkserve-spirv}
if [ "$cache" = off ] || ! mkdir -p "$cache" 2>/dev/null; then
  exec "$glslc" "$@"
fi

# The output, the depfile and the flags that reach code generation. -I
# paths, -D defines and the source's path only act through the preprocessed
# text.
out='' dep='' flags=() pre_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    -MF) dep=$2; pre_args+=(-MD -MF "$2"); shift ;;
    -MD) ;;
    -I* | -D*) pre_args+=("$1") ;;
    -*) pre_args+=("$1"); flags+=("$1") ;;
    *) pre_args+=("$1") ;;  # the source, a checkout path
  esac
  shift
done
if [ -z "$out" ] || [ -z "$dep" ]; then
  exec "$glslc" "${pre_args[@]}" ${out:+-o "$out"}
fi

# Preprocess (also writes the depfile ninja reads, naming OUT as target).
pre="$out.pre"
"$glslc" "${pre_args[@]}" -E -MT "$out" -o "$pre"
key=$({
  "$glslc" --version
  echo "${flags[*]}"
  # Included files' #line names, without the checkout's directories.
  sed -E 's|^(#line [0-9]+ ")[^"]*/|\1|' "$pre"
} | sha256sum | cut -c1-40)
rm -f "$pre"
entry="$cache/$key.spv"
if [ -f "$entry" ] && cp "$entry" "$out.tmp" 2>/dev/null; then
  mv "$out.tmp" "$out"
  touch "$entry"  # recently used
  exit 0
fi
"$glslc" "${pre_args[@]}" -o "$out"
tmp="$cache/.$key.$$"
if cp "$out" "$tmp" 2>/dev/null; then
  mv "$tmp" "$entry"
  limit=${VKSERVE_SPIRV_CACHE_FILES:-4000}
  count=$(find "$cache" -maxdepth 1 -name '*.spv' | wc -l)
  if [ "$count" -gt "$limit" ]; then
    # shellcheck disable=SC2012  # the names are hex digests
    ls -t "$cache"/*.spv | tail -n "$((count - limit))" | xargs rm -f
  fi
fi
