"""One exception hierarchy; the CLI turns these into ``ERROR: ...`` and exit status 2."""


class NsightflowError(Exception):
    """Base class: an expected failure the user can fix (exit status 2)."""


class ManifestError(NsightflowError):
    """A family manifest or config value is missing or wrong; names file and field."""


class CompileError(NsightflowError):
    """nvcc is missing or could not be run at all (a rejected variant is data)."""


class GpuUnavailableError(NsightflowError):
    """No usable CUDA device, or pycuda / NVML is not installed."""


class NcuUnavailableError(NsightflowError):
    """ncu is missing, too old, or cannot read the hardware counters here."""


class ReportParseError(NsightflowError):
    """An .ncu-rep or ncu CSV file cannot be read; names the file."""


class StageInputError(NsightflowError):
    """A stage's input file is missing or does not match its schema."""
