"""littleghost_testing: the pytest kit for littleghost tools."""
