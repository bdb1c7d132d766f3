"""Kernel families: the manifest model, its loading and validation, expressions, inputs."""
