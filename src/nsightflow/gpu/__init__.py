"""GPU work: the launcher, its worker process, isolation, timing, verification, tracing."""
