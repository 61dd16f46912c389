"""``schedlab config``: the user settings (traces folder, download cache, mirror, progress bars),
where each comes from, and writing them to the configuration file (:mod:`schedlab.core.config`)."""
from __future__ import annotations

import os


def cmd_show(args) -> int:
    import pandas as pd
    from ..core import config
    table = config.settings()
    table["value"] = [("(not set)" if v is None else v) for v in table["value"]]
    with pd.option_context("display.width", 250, "display.max_colwidth", 120):
        print(table.to_string(index=False))
    print(f"\nconfiguration file: {config.config_path()}"
          f"{'' if os.path.isfile(config.config_path()) else ' (none yet)'}; "
          "environment variables override it. Change a setting with 'schedlab config set KEY VALUE'.")
    return 0


def cmd_set(args) -> int:
    from ..core import config
    from .main import UsageError, did_you_mean
    if args.key not in config.SETTINGS:
        raise UsageError(f"unknown setting '{args.key}'{did_you_mean(args.key, config.SETTINGS)}; "
                         f"known: {', '.join(config.SETTINGS)}")
    path = config.set_value(args.key, args.value)
    shown = config.read_file(path)[args.key]
    print(f"{args.key} = {shown!r} written to {path}")
    env = config.SETTINGS[args.key][0]
    if os.environ.get(env, "").strip():
        print(f"note: ${env} is set and overrides it", flush=True)
    return 0


def cmd_unset(args) -> int:
    from ..core import config
    from .main import UsageError, did_you_mean
    if args.key not in config.SETTINGS:
        raise UsageError(f"unknown setting '{args.key}'{did_you_mean(args.key, config.SETTINGS)}; "
                         f"known: {', '.join(config.SETTINGS)}")
    path = config.set_value(args.key, None)
    print(f"{args.key} removed from {path}")
    return 0


def add_command(sub):
    from .main import Parser
    p = sub.add_parser("config", help="show or change the settings (traces folder, download cache, ...)",
                       description="The settings: traces (a folder of trace files used in place), cache (where "
                                   "downloads are kept), mirror (where to download from), progress (progress "
                                   "bars). Each is read from its environment variable (SCHEDLAB_TRACES, "
                                   "SCHEDLAB_CACHE, SCHEDLAB_MIRROR, SCHEDLAB_PROGRESS), else from the "
                                   "configuration file ($SCHEDLAB_CONFIG, default ~/.config/schedlab/config.toml).")
    p.set_defaults(func=cmd_show)
    csub = p.add_subparsers(dest="config_command", metavar="action", parser_class=Parser)
    show = csub.add_parser("show", help="every setting, its value and where it comes from (the default action)")
    show.set_defaults(func=cmd_show)
    s = csub.add_parser("set", help="write a setting to the configuration file")
    s.add_argument("key", metavar="KEY", help="traces, cache, mirror or progress")
    s.add_argument("value", metavar="VALUE", help="a folder, an address, or true/false for progress")
    s.set_defaults(func=cmd_set)
    u = csub.add_parser("unset", help="remove a setting from the configuration file")
    u.add_argument("key", metavar="KEY", help="traces, cache, mirror or progress")
    u.set_defaults(func=cmd_unset)
