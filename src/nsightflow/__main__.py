"""Entry point for ``python -m nsightflow``."""

from nsightflow.cli import main

raise SystemExit(main())
