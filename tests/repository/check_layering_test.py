#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""tools/check_layering.py: the tree keeps its layers, and the check finds an
include or a link that runs upward, an oversized file and a crowded folder."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CHECK = os.path.join(ROOT, 'tools', 'check_layering.py')
sys.path.insert(0, os.path.dirname(CHECK))
import check_layering  # noqa: E402


def run(root):
    p = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
    return p.returncode, p.stdout


class CheckLayeringTest(unittest.TestCase):
    def tree(self, files):
        """A tree with every layer's folder and `files` (path -> text)."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        for layer in check_layering.LAYERS:
            os.makedirs(os.path.join(tmp.name, layer), exist_ok=True)
        for path, text in files.items():
            with open(os.path.join(tmp.name, path), 'w') as f:
                f.write(text)
        return tmp.name

    def test_the_tree_keeps_its_layers(self):
        code, out = run(ROOT)
        self.assertEqual(code, 0, out)

    def test_downward_include_passes(self):
        code, out = run(self.tree({'runtime/session.h': '#include "runtime/ir/graph.h"\n'}))
        self.assertEqual(code, 0, out)

    def test_upward_include_fails(self):
        code, out = run(self.tree({'runtime/ir/graph.h': '#include "runtime/session.h"\n'}))
        self.assertEqual(code, 1)
        self.assertIn('runtime/ir/graph.h: includes "runtime/session.h" of runtime/, above runtime/ir/', out)

    def test_sideways_include_fails(self):
        code, out = run(self.tree({'server/scheduling/a.cc': '#include "server/observability/metrics.h"\n'}))
        self.assertEqual(code, 1)
        self.assertIn('of server/observability/, above server/scheduling/', out)

    def test_upward_link_fails(self):
        code, out = run(self.tree({
            'runtime/ir/CMakeLists.txt': 'vkserve_library(vkserve_ir SOURCES a.cc DEPS vkserve_runtime absl::status)\n',
            'runtime/CMakeLists.txt': 'vkserve_library(vkserve_runtime SOURCES b.cc DEPS vkserve_ir)\n'}))
        self.assertEqual(code, 1)
        self.assertIn('vkserve_ir links vkserve_runtime of runtime/, above runtime/ir/', out)

    def test_long_file_and_crowded_folder_fail(self):
        files = {'gpu/long.cc': '\n' * (check_layering.MAX_LINES + 1)}
        files.update({f'base/f{i}.h': '' for i in range(check_layering.MAX_FILES + 1)})
        code, out = run(self.tree(files))
        self.assertEqual(code, 1)
        self.assertIn('gpu/long.cc: 801 lines', out)
        self.assertIn('base/: 41 files', out)


if __name__ == '__main__':
    unittest.main()
