"""One module per agent CLI: how to install, configure, start, resume and read it."""
