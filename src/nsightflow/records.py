"""The status values of stage records: :class:`nsightflow.contracts.Status`.

Kept as a name for the modules that import ``Status`` from here; the declaration is
in :mod:`nsightflow.contracts.status`, beside the tables.
"""

from nsightflow.contracts.status import Status

__all__ = ["Status"]
