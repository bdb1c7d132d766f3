"""Needs a framework that is not installed anywhere."""

import nsightflow_no_such_framework


def prepare(args):
    return nsightflow_no_such_framework.launcher(args)
