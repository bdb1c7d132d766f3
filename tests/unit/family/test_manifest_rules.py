"""Manifest rules for names, block sizes, links and bidirectional text: a fault matrix.

Each row edits a copy of kernels/vecadd/family.yaml; loading it must fail with one line
naming the file and the field (or load, for the harmless rows).
"""

import shutil
from pathlib import Path

import pytest
import yaml

from nsightflow.errors import ManifestError
from nsightflow.family.registry import load_family

ROOT = Path(__file__).resolve().parents[3]
V0 = "v0_one_per_thread"


def _load(tmp_path: Path, edit) -> None:
    folder = tmp_path / "vecadd"
    shutil.copytree(ROOT / "kernels" / "vecadd", folder)
    data = yaml.safe_load((folder / "family.yaml").read_text())
    edit(data, data["variants"][V0])
    (folder / "family.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
    load_family(folder)


def _param(name, values=(256,)):
    def edit(data, v0):
        v0["params"] = {name: list(values)}
        v0["grid"] = [f"cdiv(n, {name})"]  # used: the source check passes

    return edit


def _define(name):
    def edit(data, v0):
        v0["defines"] = {name: 1}

    return edit


def _block(block, params=None, accepts=None):
    def edit(data, v0):
        v0["block"] = block
        if params:
            v0["params"] = params
        if accepts:
            v0["accepts"] = accepts

    return edit


def _rename(length):
    def edit(data, v0):
        name = "v9_" + "x" * (length - 3)
        data["variants"][name] = {**v0, "source": f"{V0}.cu"}

    return edit


def _text(field, text):
    def edit(data, v0):
        (v0 if field == "idea" else data)[field] = text

    return edit


def _constraint(text):
    def edit(data, v0):
        v0["params"] = {"BS": [256, 128]}
        v0["block"] = ["BS"]
        v0["constraints"] = [text]

    return edit


RLO, PDF, RLI, PDI = "\u202e", "\u202c", "\u2067", "\u2069"
FAULTS = {
    "param_blockDim": (
        _param("blockDim"),
        "variants.v0_one_per_thread.params.blockDim",
    ),
    "param_threadIdx": (_param("threadIdx"), "params.threadIdx"),
    "param_cuda_arch": (_param("__CUDA_ARCH__"), "params.__CUDA_ARCH__"),
    "param_reserved": (_param("_Tile"), "params._Tile"),
    "param_keyword": (_param("int"), "params.int"),
    "define_cudacc": (_define("__CUDACC__"), "defines.__CUDACC__"),
    "define_warpsize": (_define("warpSize"), "defines.warpSize"),
    "define_null": (_define("NULL"), "defines.NULL"),
    "name_244": (_rename(244), "variants"),
    "name_65": (_rename(65), "variants"),
    "block_4096": (_block([4096]), "block.0"),
    "block_64x64": (_block([64, 64]), "block"),
    "block_param_default": (_block(["BS"], {"BS": [4096]}), "block.0"),
    "block_param_quick": (
        _block(["BS"], {"BS": {"values": [256, 4096], "quick": [256, 4096]}}),
        "block.0",
    ),
    "block_no_size_accepted": (_block([2048], accepts="n < 0"), "block.0"),
    "link_protocol_relative": (_text("idea", "see [it](//evil.example/x)"), "idea"),
    "link_javascript": (
        _text("description", "[x](javascript:alert(1))"),
        "description",
    ),
    "link_relative": (_text("title", "[x](../../etc/passwd)"), "title"),
    "link_reference": (_text("idea", "[x][1]\n\n[1]: //evil.example"), "idea"),
    "link_no_host": (_text("idea", "[x](https:///path)"), "idea"),
    "link_image": (_text("idea", "![x](file:///etc/passwd)"), "idea"),
    "bidi_open_override": (_text("idea", f"safe {RLO}gnp.exe"), "idea"),
    "bidi_open_isolate": (_text("title", f"a {RLI}b"), "title"),
    "bidi_crossed": (_text("title", f"{RLO}a{RLI}b{PDF}c{PDI}"), "title"),
    "bidi_closed_next_line": (_text("description", f"a{RLO}b\nc{PDF}"), "description"),
    "bidi_in_expression": (_constraint(f"BS <= 1024 {RLO}"), "constraints.0"),
}


@pytest.mark.parametrize("case", sorted(FAULTS))
def test_a_manifest_breaking_a_rule_is_refused_naming_its_field(tmp_path, case):
    edit, field = FAULTS[case]
    with pytest.raises(ManifestError) as info:
        _load(tmp_path, edit)
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'vecadd/family.yaml'}: "), message
    assert "\n" not in message
    assert field in message, message


@pytest.mark.parametrize(
    "edit",
    [
        _param("BS"),
        _define("TILE_X"),
        _rename(64),
        _block(["BS"], {"BS": {"values": [256, 2048]}}),  # 2048: a full sweep's data
        _block([32, 32]),
        _text(
            "idea", "see [the guide](https://docs.nvidia.com/cuda/) and <https://x.org>"
        ),
        _text("title", "Vector addition (stride one = 1)"),
        _text("title", f"a {RLI}b{PDI} {RLO}c{PDF}"),
        _text("idea", "قيمة n"),  # right-to-left text needs no control
    ],
)
def test_a_manifest_within_the_rules_loads(tmp_path, edit):
    _load(tmp_path, edit)
