"""The root commands, one per module (``run``, ``score``, ``report``, ``models``, ``doctor``, ``demo``,
``bench check`` / ``rehash``) and the help texts of the root groups (`groups`).

Every command is a plain function registered under the ``egoworld.commands`` entry-point group (a package's
own commands stay in its ``cli.py``); `egoworld.cli` builds the command line from that group. Heavy imports
stay inside the command functions, so ``egoworld --help`` stays fast.
"""
