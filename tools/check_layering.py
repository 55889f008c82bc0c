#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Checks that the source tree keeps its layers.

Every folder of the product is one layer and one CMake library. A file may
include headers of its own layer and of the layers its layer sits on
(LAYERS, closed transitively), never of a layer above; each library may link
only the libraries of those layers. The same tree also keeps its size: no
source file over MAX_LINES lines, no folder of more than MAX_FILES files.

  tools/check_layering.py SOURCE_DIR

prints every violation and exits 1 if there is any. tests/, tools/ and
benchmarks/ sit on top of everything and are not checked.
"""
import os
import re
import sys

# layer -> the layers it sits on directly. A folder belongs to the longest
# layer name that prefixes it (runtime/ops/nn is runtime/ops).
LAYERS = {
    'base': [],
    'shaders': ['base'],
    'gpu': ['base', 'shaders'],
    'proto': [],
    'config': ['base', 'proto'],
    'runtime/ir': ['base'],
    'runtime/loaders': ['runtime/ir'],
    'runtime/op': ['runtime/ir', 'gpu'],
    'runtime/kernels': ['runtime/op'],
    'runtime/ops': ['runtime/kernels'],
    'runtime/lowering': ['runtime/ops'],
    'runtime/plan': ['runtime/kernels'],
    'runtime/passes': ['runtime/plan', 'runtime/lowering'],
    'runtime/exec': ['runtime/plan'],
    'runtime/report': ['runtime/passes'],
    'runtime': ['runtime/exec', 'runtime/report', 'runtime/loaders'],
    'server/scheduling': ['runtime', 'config'],
    'server/observability': ['runtime', 'config'],
    'server/models': ['server/scheduling', 'server/observability'],
    'server/tls': ['config'],
    'server/grpc': ['server/models', 'server/tls'],
    'server/http': ['server/grpc'],
    'server/daemon': ['server/http'],
    'cli': ['server/daemon'],
}
MAX_LINES = 800
MAX_FILES = 40
SOURCE_SUFFIXES = ('.h', '.cc', '.comp', '.glsl')
# Libraries from outside the tree's layers that any layer may link.
EXTERNAL = re.compile(r'^(absl::|Boost::|OpenSSL::|PkgConfig::|spdlog::|Vulkan::|protobuf::|'
                      r'prometheus-cpp::|nlohmann_json::|CLI11::|Threads::|onnx_proto$|rt$|\$<)')


def layer_of(folder):
    best = None
    for layer in LAYERS:
        if folder == layer or folder.startswith(layer + '/'):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def below(layer, memo={}):
    """The layers `layer` may use: itself and everything it sits on."""
    if layer not in memo:
        found = {layer}
        for lower in LAYERS[layer]:
            found |= below(lower)
        memo[layer] = found
    return memo[layer]


def main(root):
    problems = []
    libraries = {}  # CMake library -> layer
    declared = []   # (layer, cmake file, library, deps)
    for layer in LAYERS:
        if not os.path.isdir(os.path.join(root, layer)):
            problems.append(f'{layer}/: no such folder (update LAYERS in tools/check_layering.py)')
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, '/')
        dirs[:] = [d for d in dirs if not d.startswith('.') and not d.startswith('build')]
        layer = layer_of(rel)
        if layer is None:
            continue
        sources = [f for f in files if f.endswith(SOURCE_SUFFIXES)]
        if len(files) > MAX_FILES:
            problems.append(f'{rel}/: {len(files)} files (at most {MAX_FILES})')
        for name in sources:
            path = f'{rel}/{name}'
            with open(os.path.join(folder, name), encoding='utf-8') as f:
                text = f.read()
            if text.count('\n') > MAX_LINES:
                problems.append(f'{path}: {text.count(chr(10))} lines (at most {MAX_LINES})')
            for include in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
                target = layer_of(os.path.dirname(include))
                if target is not None and target not in below(layer):
                    problems.append(f'{path}: includes "{include}" of {target}/, above {layer}/')
        if 'CMakeLists.txt' in files:
            with open(os.path.join(folder, 'CMakeLists.txt'), encoding='utf-8') as f:
                cmake = re.sub(r'#.*', '', f.read())
            for name in re.findall(r'add_library\(\s*(vkserve_\w+)', cmake):
                libraries[name] = layer
            for name, body in re.findall(r'vkserve_library\(\s*(\w+)(.*?)\)\s*$', cmake, re.S | re.M):
                libraries[name] = layer
                deps = body.split('DEPS', 1)[1].split() if 'DEPS' in body else []
                declared.append((layer, f'{rel}/CMakeLists.txt', name, deps))
    for layer, cmake, name, deps in declared:
        for dep in deps:
            dep = re.sub(r'^"?\$<LINK_LIBRARY:WHOLE_ARCHIVE,(\w+)>"?$', r'\1', dep)
            if dep in libraries:
                if libraries[dep] not in below(layer):
                    problems.append(f'{cmake}: {name} links {dep} of {libraries[dep]}/, above {layer}/')
            elif not EXTERNAL.match(dep):
                problems.append(f'{cmake}: {name} links {dep}, which no layer declares')
    for p in problems:
        print(p)
    print(f'{len(problems)} layering problems in {len(LAYERS)} layers')
    return 1 if problems else 0


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: check_layering.py SOURCE_DIR')
    sys.exit(main(sys.argv[1]))
