"""One module per subcommand: register_parser() and run()."""
