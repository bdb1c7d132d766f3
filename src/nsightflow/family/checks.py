"""Load-time checks of a manifest: every expression at every declared size.

The registry calls :func:`check_family` on each family it loads, so a manifest whose
FLOPs, bytes, shapes, scalar values, grids, shared-memory sizes or ``accepts``
condition cannot be evaluated, or gives a value its field cannot hold (negative
bytes, a fractional grid, a scalar beyond its dtype), fails before any job runs,
naming the file, the field and the size. The checks are those the launcher and the
analysis apply when they evaluate the same expressions (:mod:`nsightflow.family.model`),
here at every size of ``sizes``, ``profile_sizes`` and ``verify_sizes``.

Sizes that ``generate()`` returns (``generated``, e.g. ``nnz``) are known only when
the generator runs; here each stands in as ``n``, which catches every expression
that is malformed or unbounded whatever the sizes are. Their real values are checked
the same way when verify, time and analyze evaluate the expressions.
"""

from nsightflow.errors import ManifestError
from nsightflow.family.model import (
    MAX_BLOCK,
    MAX_THREADS_PER_BLOCK,
    Arg,
    Family,
    Variant,
)


def check_block(block: tuple[int, ...], where: str) -> None:
    """A block shape within the device's limits.

    Raises:
        ManifestError: a dimension or the thread count is beyond the limits.
    """
    for i, (dim, most) in enumerate(zip(block, MAX_BLOCK, strict=False)):
        if not 1 <= dim <= most:
            raise ManifestError(
                f"{where}.block.{i}: {dim} is outside 1..{most} (CUDA's block limit)"
            )
    threads = 1
    for dim in block:
        threads *= dim
    if threads > MAX_THREADS_PER_BLOCK:
        raise ManifestError(
            f"{where}.block: {list(block)} is {threads} threads per block, more than "
            f"CUDA's {MAX_THREADS_PER_BLOCK}"
        )


def check_family(family: Family) -> None:
    """Evaluate and check every expression of ``family`` at every declared size.

    Raises:
        ManifestError: the first expression that fails, naming file, field and size.
    """
    where = f"{family.folder / 'family.yaml'}: field"
    sizes = sorted({*family.sizes, *family.profile_sizes, *family.verify_sizes})
    for n in sizes:
        stand_in = {"n": n, **dict.fromkeys(family.generated, n)}
        try:
            family.ideal_flops(stand_in)
            family.ideal_bytes(stand_in)
            _check_args(family.args, stand_in, f"{where} args")
            for variant in family.variants.values():
                if variant.accepts_size(n):
                    _check_variant(variant, stand_in)
        except ManifestError as exc:
            if not family.generated:
                raise
            raise ManifestError(
                f"{exc} (at load, the generated sizes {list(family.generated)} stand "
                "in as n)"
            ) from exc


def _check_args(args: tuple[Arg, ...], sizes: dict[str, int], where: str) -> None:
    for arg in args:
        if arg.shape is not None:
            arg.shape_for(sizes, where)
        if arg.value is not None:
            arg.value_for(sizes, where)


def _check_variant(variant: Variant, sizes: dict[str, int]) -> None:
    field = variant.where.replace(": variants.", ": field variants.", 1)
    _check_args(variant.scratch, sizes, f"{field}.scratch")
    several = len(variant.launches) > 1
    for i, launch in enumerate(variant.launches):
        at = f"{field}.launches.{i}" if several else field
        check_block(launch.block, at)  # resolved at the parameters' defaults
        launch.shape(sizes, at)
        launch.dynamic_shared(sizes, at)
        inline = tuple(a for a in launch.args if a.role == "scalar")
        _check_args(inline, sizes, f"{at}.args")
