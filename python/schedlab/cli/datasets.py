"""``schedlab datasets``: the shipped datasets and the public traces downloaded by name."""
from __future__ import annotations

import sys


def cmd_list(args) -> int:
    import pandas as pd
    import schedlab as sl
    from ..workloads import download as dl
    remotes = dl.available().set_index("name")
    rows = []
    for name, description in sl.datasets.available().itertuples(index=False):
        if name in remotes.index:
            local = remotes.loc[name, "local"]
            where = local if local else "not downloaded"
            rows.append({"name": name, "kind": "download", "where": where,
                         "description": remotes.loc[name, "description"]})
        else:
            rows.append({"name": name, "kind": "shipped", "where": "(in the package)", "description": description})
    df = pd.DataFrame(rows).sort_values(["kind", "name"], ascending=[False, True])
    with pd.option_context("display.width", 250, "display.max_colwidth", 100):
        print(df.to_string(index=False))
    print(f"\nDownloads go to {dl.cache_dir()} ('schedlab config set cache FOLDER' changes it); files already under "
          f"the traces folder ({dl.traces_dir() or 'not set'}; 'schedlab config set traces FOLDER') are used in place. "
          "Get one with 'schedlab datasets get NAME'; use any name as 'schedlab run --trace NAME'.",
          file=sys.stderr if args.quiet else sys.stdout)
    return 0


def cmd_get(args) -> int:
    import schedlab as sl
    from ..workloads import download as dl
    from .main import UsageError, did_you_mean
    names = sorted(dl.REMOTES) if args.all else args.names
    if not names:
        raise UsageError("datasets get needs a NAME (or --all); see 'schedlab datasets list'")
    for name in names:
        if name not in dl.REMOTES:
            shipped = list(sl.datasets.available()["name"])
            if name in shipped:
                raise UsageError(f"'{name}' ships with the package: nothing to download")
            raise UsageError(f"unknown downloadable trace '{name}'{did_you_mean(name, dl.REMOTES)}; "
                             "see 'schedlab datasets list'")
    for name in names:
        path = dl.download(name, mirror=args.mirror, force=args.force,
                           progress=False if args.quiet else args.progress)
        print(f"{name}\t{path}")
    return 0


def add_command(sub):
    from .main import Parser, add_progress_options
    p = sub.add_parser("datasets", help="list the datasets, download public traces by name",
                       description="Shipped datasets and public traces (Hawk/Eagle Yahoo and Google 2011 "
                                   "sub-traces, SWIM Facebook, Alibaba 2017) known by name; a download is "
                                   "checked against its SHA-256 and kept in the cache (default ~/.cache/schedlab). Files under the traces folder "
                                   "are used in place. Both are set with 'schedlab config'.")
    dsub = p.add_subparsers(dest="datasets_command", metavar="action", parser_class=Parser)
    dsub.required = True
    ls = dsub.add_parser("list", help="every dataset, and where a downloaded one is")
    ls.add_argument("-q", "--quiet", action="store_true", help="only the table on stdout")
    ls.set_defaults(func=cmd_list)
    get = dsub.add_parser("get", help="download traces into the cache (checked by SHA-256); prints their paths")
    get.add_argument("names", nargs="*", metavar="NAME", help="trace names ('schedlab datasets list')")
    get.add_argument("--all", action="store_true", help="every downloadable trace")
    get.add_argument("--mirror", default=None,
                     help="a mirror (http(s)://, file:// or a folder) laid out as the 'path' of each trace")
    get.add_argument("--force", action="store_true", help="download again even when cached")
    add_progress_options(get)
    get.set_defaults(func=cmd_get)
