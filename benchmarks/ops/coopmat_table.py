# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The tensor-core tile table, shaders/gemm/gemm_coopmat_tiles.def, read as
# shaders/CMakeLists.txt and runtime/kernels/gemm/gemm_plan.cc read it, so
# that the sweep (coopmat_sweep.py) pins exactly the tiles the build makes and
# the fit (fit_coopmat_cost.py) starts from, and prints, the rows the C++
# side prices plans with. The file's header says what each column means.
import pathlib
import re

DEF_PATH = pathlib.Path(__file__).resolve().parents[2] / "shaders" / "gemm" / \
    "gemm_coopmat_tiles.def"
EXTENSIONS = ("nv", "khr")
TILE_COLUMNS = ("name", "bm", "bn", "bk", "warps_m", "warps_n", "stages", "prefetch", "cm_m",
                "cm_n", "cm_k", "speed", "nv_resident", "nv_step_us", "nv_wave_us", "khr_resident",
                "khr_step_us", "khr_wave_us")
_INTS = {"bm", "bn", "bk", "warps_m", "warps_n", "stages", "prefetch", "cm_m", "cm_n", "cm_k",
         "nv_resident", "khr_resident"}


def _fields(row):
    return [f.strip().strip('"') for f in row.split(",")]


def read_table(path=DEF_PATH):
    """({tile name: {column: value}} in table order, {extension: (split_us, partial_us)})"""
    text = pathlib.Path(path).read_text()
    tiles = {}
    for row in re.findall(r"^VKSERVE_GEMM_COOPMAT_TILE\(([^)]*)\)", text, re.MULTILINE):
        fields = _fields(row)
        if len(fields) != len(TILE_COLUMNS):
            raise ValueError(f"{path}: a tile row has {len(fields)} fields, not "
                             f"{len(TILE_COLUMNS)}: {row}")
        tile = {}
        for column, value in zip(TILE_COLUMNS, fields):
            tile[column] = value if column == "name" else \
                int(value) if column in _INTS else float(value)
        tiles[tile["name"]] = tile
    splits = {}
    for row in re.findall(r"^VKSERVE_GEMM_COOPMAT_SPLIT\(([^)]*)\)", text, re.MULTILINE):
        extension, split_us, partial_us = _fields(row)
        splits[extension] = (float(split_us), float(partial_us))
    if not tiles or sorted(splits) != sorted(EXTENSIONS):
        raise ValueError(f"{path}: no tile rows, or not one split row per extension")
    return tiles, splits


def shared_bytes(tile):
    """CoopmatTile::shared_bytes: the fp16 stages of A and B (the epilogue reuses them)."""
    def stage(mn):
        return max(mn * (tile["bk"] + 8), tile["bk"] * (mn + 8))
    return tile["stages"] * (stage(tile["bm"]) + stage(tile["bn"])) * 2


def threads(tile):
    return tile["warps_m"] * tile["warps_n"] * 32


def _number(value):
    return f"{value:.3f}"


def tile_row(tile):
    """The .def row of `tile` (a read_table entry, figures possibly refitted)."""
    fields = [f'"{tile["name"]}"']
    for column in TILE_COLUMNS[1:12]:
        fields.append(str(tile[column]))
    for extension in EXTENSIONS:
        fields += [str(tile[f"{extension}_resident"]), _number(tile[f"{extension}_step_us"]),
                   _number(tile[f"{extension}_wave_us"])]
    return f"VKSERVE_GEMM_COOPMAT_TILE({', '.join(fields)})"


def split_row(extension, split_us, partial_us):
    return f"VKSERVE_GEMM_COOPMAT_SPLIT({extension}, {_number(split_us)}, {_number(partial_us)})"
