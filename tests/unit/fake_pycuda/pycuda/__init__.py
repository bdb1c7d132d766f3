"""A CPU stand-in for pycuda, just enough for nsightflow's sweep worker in tests."""
