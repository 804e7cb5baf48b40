"""More commands of the CLI, one module each; every module here registers on ``simtenant.cli.app``."""
