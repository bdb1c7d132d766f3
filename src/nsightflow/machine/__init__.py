"""This machine: capabilities, doctor, the GPU lock, provenance, history, recordings."""
