"""User settings: where traces are found and kept, and whether progress bars show.

Each setting is read from its environment variable when that is set, else from the user's
configuration file, else it takes its default:

============  ======================  =====================================================
setting       environment variable    meaning
============  ======================  =====================================================
``traces``    ``SCHEDLAB_TRACES``     a folder of trace files used in place (``swim/...``,
                                      ``hawk_eagle/...``, ``alibaba2017/...``)
``cache``     ``SCHEDLAB_CACHE``      where downloads are kept (default
                                      ``$XDG_CACHE_HOME/schedlab`` or ``~/.cache/schedlab``)
``mirror``    ``SCHEDLAB_MIRROR``     a mirror to download from instead of the public address
``progress``  ``SCHEDLAB_PROGRESS``   progress bars: true, false, or unset for "when
                                      interactive"
============  ======================  =====================================================

The configuration file is TOML, at ``$SCHEDLAB_CONFIG`` when set, else
``$XDG_CONFIG_HOME/schedlab/config.toml``, else ``~/.config/schedlab/config.toml``::

    traces = "~/data/traces"
    cache = "/scratch/schedlab-cache"
    progress = false

A relative path in the file is taken relative to the file's folder; ``~`` is expanded. An
unknown key, a value of the wrong type or a file that is not TOML is a ``ValueError`` naming the
file (and the line, for a syntax error). ``schedlab config`` shows the settings and where each
comes from; ``schedlab config set KEY VALUE`` writes the file.
"""
from __future__ import annotations

import difflib
import json
import os
import tomllib
from dataclasses import dataclass

# setting -> (environment variable, kind)
SETTINGS = {
    "traces": ("SCHEDLAB_TRACES", "path"),
    "cache": ("SCHEDLAB_CACHE", "path"),
    "mirror": ("SCHEDLAB_MIRROR", "location"),
    "progress": ("SCHEDLAB_PROGRESS", "bool"),
}


@dataclass(frozen=True)
class Setting:
    """One setting's effective value and where it came from ("environment", "config file",
    "default")."""
    name: str
    value: object
    source: str


def config_path() -> str:
    """The configuration file's path (whether or not it exists)."""
    p = os.environ.get("SCHEDLAB_CONFIG")
    if p:
        return os.path.abspath(os.path.expanduser(p))
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(os.path.abspath(os.path.expanduser(base)), "schedlab", "config.toml")


def _parse_bool(text, where):
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{where}: expected true or false, got {text!r}")


def _unknown(key, where):
    close = difflib.get_close_matches(key, list(SETTINGS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ValueError(f"{where}: unknown setting {key!r}{hint}; known: {', '.join(SETTINGS)}")


def read_file(path: str | None = None) -> dict:
    """The settings written in the configuration file (``{}`` when there is none), checked and
    with paths made absolute."""
    path = path or config_path()
    if not os.path.isfile(path):
        return {}
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:  # its message names the line and column
        raise ValueError(f"{path}: not a valid TOML file: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot read the configuration file: {e}") from None
    out = {}
    folder = os.path.dirname(path)
    for key, value in raw.items():
        if key not in SETTINGS:
            raise _unknown(key, path)
        kind = SETTINGS[key][1]
        where = f"{path}: setting {key!r}"
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{where}: expected true or false, got {value!r}")
        elif not isinstance(value, str) or not value.strip():
            raise ValueError(f"{where}: expected a non-empty string, got {value!r}")
        elif kind == "path" or (kind == "location" and "://" not in value):
            value = os.path.normpath(os.path.join(folder, os.path.expanduser(value)))
        out[key] = value
    return out


def get(name: str) -> Setting:
    """The effective value of setting ``name``: its environment variable when set (and not
    empty), else the configuration file's, else None (the caller's default)."""
    if name not in SETTINGS:
        raise _unknown(name, "schedlab.config")
    env, kind = SETTINGS[name]
    text = os.environ.get(env)
    if text is not None and text.strip():
        if kind == "bool":
            return Setting(name, _parse_bool(text, f"${env}"), "environment")
        if kind == "path":
            text = os.path.abspath(os.path.expanduser(text))
        return Setting(name, text, "environment")
    written = read_file()
    if name in written:
        return Setting(name, written[name], "config file")
    return Setting(name, None, "default")


def settings():
    """Every setting as a DataFrame: name, value, source and environment variable."""
    import pandas as pd
    rows = []
    for name, (env, _) in SETTINGS.items():
        s = get(name)
        rows.append({"setting": name, "value": s.value, "source": s.source, "environment variable": env})
    return pd.DataFrame(rows)


def set_value(name: str, value, path: str | None = None) -> str:
    """Writes ``name = value`` into the configuration file (created if missing; other settings
    kept); ``value=None`` removes the setting. Returns the file's path."""
    path = path or config_path()
    if name not in SETTINGS:
        raise _unknown(name, "schedlab config set")
    kind = SETTINGS[name][1]
    current = read_file(path)  # a file with errors is refused, not overwritten
    if value is None:
        current.pop(name, None)
    elif kind == "bool":
        current[name] = value if isinstance(value, bool) else _parse_bool(value, f"setting {name!r}")
    else:
        value = str(value)
        if not value.strip():
            raise ValueError(f"setting {name!r}: expected a non-empty value")
        if kind == "path" or (kind == "location" and "://" not in value):
            value = os.path.abspath(os.path.expanduser(value))  # relative to where the command runs
        current[name] = value
    os.makedirs(os.path.dirname(path), exist_ok=True)
    lines = ["# schedlab settings (see 'schedlab config'); environment variables override them"]
    for key in SETTINGS:  # JSON strings and booleans are valid TOML values
        if key in current:
            lines.append(f"{key} = {json.dumps(current[key])}")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path
