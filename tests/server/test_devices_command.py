#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# `vkserve devices` against vulkaninfo (Khronos' vulkan-tools, an independent
# reader of the same driver): each device's name, Vulkan version, subgroup
# size and the limits vkserve plans with (storage buffer range, shared
# memory, workgroup invocations, push constants) must be what the driver
# reports; --device picks by index and by name; a bad selector or flag
# fails with a message. Fails without vulkaninfo.
import os
import re
import shutil
import subprocess
import sys
import unittest

VULKANINFO = shutil.which("vulkaninfo")
if VULKANINFO is None:  # pragma: no cover
    print("vulkaninfo is missing (scripts/setup.sh installs vulkan-tools)", file=sys.stderr)
    sys.exit(1)

VKSERVE = os.path.join(os.environ.get("VKSERVE_BINARY_DIR", "build"), "vkserve")
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def vulkaninfo_devices():
    """Per GPU section of `vulkaninfo`: the properties this test compares."""
    text = subprocess.run([VULKANINFO], capture_output=True, text=True, timeout=120, check=True).stdout
    devices = []
    for section in re.split(r"\nGPU\d+:\n", text)[1:]:
        def first(key):
            m = re.search(rf"^\s*{key}\s*=\s*(.+)$", section, re.M)
            return m.group(1).strip() if m else None
        devices.append({
            "name": first("deviceName"),
            "api": first("apiVersion").split()[0],
            "subgroup": int(first("subgroupSize")),
            "storage_range": int(first("maxStorageBufferRange")),
            "shared": int(first("maxComputeSharedMemorySize")),
            "invocations": int(first("maxComputeWorkGroupInvocations")),
            "push": int(first("maxPushConstantsSize")),
        })
    return devices


def size_bytes(value, unit):
    return float(value) * UNITS[unit]


def vkserve_devices(*args):
    return subprocess.run([VKSERVE, "devices", *args], capture_output=True, text=True, timeout=120)


class DevicesCommandTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.expected = vulkaninfo_devices()
        run = vkserve_devices()
        assert run.returncode == 0, run.stderr
        cls.output = run.stdout

    def test_every_device_matches_vulkaninfo(self):
        blocks = re.split(r"^(?=\[\d+\] )", self.output, flags=re.M)[1:]
        self.assertEqual(len(blocks), len(self.expected), self.output)
        for block, want in zip(blocks, self.expected):
            self.assertRegex(block, rf"^\[\d+\] {re.escape(want['name'])} \(")
            self.assertIn(f"Vulkan {want['api']},", block)
            m = re.search(r"subgroup size (\d+) .*shared memory ([\d.]+) (\w+), workgroup (\d+) invocations",
                          block)
            self.assertIsNotNone(m, block)
            self.assertEqual(int(m.group(1)), want["subgroup"])
            self.assertAlmostEqual(size_bytes(m.group(2), m.group(3)), want["shared"], delta=want["shared"] / 100)
            self.assertEqual(int(m.group(4)), want["invocations"])
            m = re.search(r"max storage buffer range ([\d.]+) (\w+),.* push constants (\d+) B", block)
            self.assertIsNotNone(m, block)
            self.assertAlmostEqual(size_bytes(m.group(1), m.group(2)), want["storage_range"],
                                   delta=want["storage_range"] / 100)
            self.assertEqual(int(m.group(3)), want["push"])

    def test_selection(self):
        first = self.expected[0]["name"]
        self.assertIn(f"selected: [0] {first}", self.output)
        by_index = vkserve_devices("--device", "0")
        self.assertEqual(by_index.returncode, 0, by_index.stderr)
        self.assertIn(f"selected: [0] {first}", by_index.stdout)
        by_name = vkserve_devices("--device", first)
        self.assertEqual(by_name.returncode, 0, by_name.stderr)
        self.assertIn(f"selected: [0] {first}", by_name.stdout)

    def test_bad_selector_and_flag(self):
        bad = vkserve_devices("--device", "no-such-gpu-anywhere")
        self.assertEqual(bad.returncode, 1)
        self.assertIn("no-such-gpu-anywhere", bad.stderr)
        usage = vkserve_devices("--frobnicate")
        self.assertEqual(usage.returncode, 2)
        self.assertIn("usage: vkserve devices", usage.stderr)


if __name__ == "__main__":
    unittest.main()
