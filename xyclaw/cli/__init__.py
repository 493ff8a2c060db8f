"""The ``xyclaw`` command. Subcommands live one per module in :mod:`xyclaw.cli.commands`."""
