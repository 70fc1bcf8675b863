"""littleghost: validated, safe tools for AI agents."""
