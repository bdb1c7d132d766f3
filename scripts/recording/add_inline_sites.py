"""Add the inlined call sites (``inlined``) to a recording's compile records.

Recordings made before the compile stage stored them name a hot ``atomicAdd`` or
``__shfl_down_sync`` by a line of a CUDA header. For each compile record of the
recording whose variant's source (with its headers) still hashes to the recorded
``source_sha256``, this compiles the source again with the recorded nvcc command line
(here, into a temporary folder), reads the call sites with nvdisasm and stores them
in the record. The parse stage applies a call site only where offset, line and opcode
are the recorded report's, so a compiler that built different SASS changes nothing;
the script prints, per family, how many sites the recorded reports confirm.

Usage: python scripts/recording/add_inline_sites.py RECORDING [--kernels-dir kernels]
"""

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from nsightflow.errors import NsightflowError
from nsightflow.family.registry import find_variant
from nsightflow.io import read_json, write_json
from nsightflow.tools import provenance
from nsightflow.tools.nvcc import inline_table, source_digest


def add(record_path: Path, kernels: Path, tmp: Path) -> str:
    """Store the call sites in one compile record; say what was done."""
    record = read_json(record_path)
    try:
        source = find_variant(kernels, record["family"], record["variant"])[1].source
    except NsightflowError:
        return "skipped (no such variant here)"
    if record.get("status") != "ok":
        return "skipped (not compiled)"
    if record.get("source_sha256") != source_digest(source):
        return "skipped (source changed since the recording)"
    argv = list(record["argv"])
    cubin = tmp / f"{record['variant']}.cubin"
    argv[argv.index("-o") + 1] = str(cubin)
    argv[-1] = str(source)
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return f"skipped (nvcc failed: {proc.stderr.strip()[-200:]})"
    table = inline_table(source, cubin)
    if table is None:
        sys.exit("nvdisasm not found: pip install nvidia-cuda-nvdisasm")
    record.pop("schema_version", None)
    write_json(record_path, {**record, "inlined": table})
    return f"{len(table['sites'])} call sites"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording", type=Path)
    parser.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    args = parser.parse_args()
    done = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted((args.recording / "build").glob("*/*.resources.json")):
            outcome = add(path, args.kernels_dir, Path(tmp))
            print(f"{path.relative_to(args.recording)}: {outcome}")
            done.append(str(path.relative_to(args.recording)))
    info_path = args.recording / "recording.json"
    info = json.loads(info_path.read_text())
    info.setdefault("additions", []).append(
        {
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "command": "python scripts/recording/add_inline_sites.py "
            + " ".join(sys.argv[1:]),
            "what": "inlined call sites (resources.json 'inlined') from nvcc + nvdisasm "
            "on the CPU machine, with the recorded nvcc command lines",
            "nvcc": provenance.nvcc_version(),
            "kernels_git": provenance.git_revision(args.kernels_dir),
            "folders": sorted({str(Path(f).parent) for f in done}),
            "files": len(done),
        }
    )
    info_path.write_text(json.dumps(info, indent=2) + "\n")


if __name__ == "__main__":
    main()
