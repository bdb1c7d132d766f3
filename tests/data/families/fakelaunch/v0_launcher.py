"""y = 2x + 1 through the CUDA array interface (CPU stand-in framework)."""

import fakeframework


def prepare(args):
    x, y = fakeframework.asarray(args["x"]), fakeframework.asarray(args["y"])
    assert args["n"] == x.size  # scalars arrive as numbers

    def launch():
        y[:] = 2.0 * x + 1.0
        fakeframework.run(8.0)

    return launch
