"""Subcommands, one module each.

A module here that defines ``register(subparsers)`` is found at start-up and
adds its parser, with ``handler=function(args, ctx) -> int`` as a default.
Third-party packages can add commands through the ``xyclaw.commands`` entry
point group (the object is such a ``register`` function). Import heavy
libraries inside the handler, never at module level: ``xyclaw --version``
and ``xyclaw --help`` must stay fast.
"""
