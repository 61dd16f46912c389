"""User settings: environment variable, else configuration file, else default; bad files named."""
import os

import pytest

from schedlab.cli.main import main
from schedlab.core import config, progress
from schedlab.workloads import download


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    path = tmp_path / "conf" / "config.toml"
    monkeypatch.setenv("SCHEDLAB_CONFIG", str(path))
    for env, _ in config.SETTINGS.values():
        monkeypatch.delenv(env, raising=False)
    return path


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_defaults_without_a_file(cfg, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert all(config.get(k).source == "default" and config.get(k).value is None for k in config.SETTINGS)
    assert download.cache_dir() == str(tmp_path / "xdg" / "schedlab")
    assert download.traces_dir() is None


def test_file_settings_are_used_and_environment_overrides_them(cfg, tmp_path, monkeypatch):
    traces = tmp_path / "traces"
    traces.mkdir()
    write(cfg, f'traces = "{traces}"\ncache = "../downloads"\nprogress = true\nmirror = "https://example.org/m"\n')
    # a relative path is relative to the file's folder
    assert download.cache_dir() == str(tmp_path / "downloads")
    assert download.traces_dir() == str(traces)
    assert config.get("mirror") == config.Setting("mirror", "https://example.org/m", "config file")
    assert progress.enabled() is True
    monkeypatch.setenv("SCHEDLAB_CACHE", str(tmp_path / "env-cache"))
    monkeypatch.setenv("SCHEDLAB_PROGRESS", "0")
    assert download.cache_dir() == str(tmp_path / "env-cache")
    assert config.get("cache").source == "environment"
    assert progress.enabled() is False
    assert progress.enabled(True) is True  # an explicit argument beats both
    table = config.settings().set_index("setting")
    assert table.loc["cache", "source"] == "environment" and table.loc["traces", "source"] == "config file"


def test_the_mirror_of_the_file_is_where_downloads_come_from(cfg, tmp_path):
    write(cfg, 'mirror = "mirror-folder"\n')
    r = next(iter(download.REMOTES.values()))
    url = download._source_url(r, None)
    assert url.startswith("file:") and str(tmp_path / "conf" / "mirror-folder") in url


@pytest.mark.parametrize("text, words", [
    ('cach = "/x"\n', ["config.toml", "unknown setting 'cach'", "did you mean 'cache'"]),
    ('progress = "yes please"\n', ["config.toml", "'progress'", "true or false"]),
    ('cache = 3\n', ["config.toml", "'cache'", "non-empty string"]),
    ('cache = ""\n', ["config.toml", "'cache'", "non-empty string"]),
    ('traces = "/a"\ncache = = 3\nprogress = true\n', ["config.toml", "not a valid TOML file", "line 2"]),
])
def test_a_bad_file_is_one_error_naming_it(cfg, text, words):
    write(cfg, text)
    with pytest.raises(ValueError) as e:
        download.cache_dir()
    for w in words:
        assert w in str(e.value)


def test_a_bad_environment_value_is_named(cfg, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_PROGRESS", "sometimes")
    with pytest.raises(ValueError, match=r"\$SCHEDLAB_PROGRESS: expected true or false"):
        progress.enabled()


def test_command_line_set_show_unset(cfg, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["config", "set", "cache", "big-disk/cache"]) == 0
    assert main(["config", "set", "progress", "off"]) == 0
    assert config.read_file() == {"cache": str(tmp_path / "big-disk" / "cache"), "progress": False}
    capsys.readouterr()
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "big-disk" / "cache") in out and "config file" in out and str(cfg) in out
    assert main(["config", "unset", "cache"]) == 0
    assert config.read_file() == {"progress": False}
    # the written file is plain TOML a user can edit
    assert "progress = false" in cfg.read_text()


def test_command_line_refuses_unknown_settings_and_bad_values(cfg, capsys):
    assert main(["config", "set", "cahce", "/x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'cache'" in err
    assert main(["config", "set", "progress", "maybe"]) == 2
    assert "true or false" in capsys.readouterr().err
    assert not os.path.exists(cfg)  # nothing written
    write(cfg, "cache = [\n")
    assert main(["config", "set", "progress", "true"]) == 2  # a broken file is not overwritten
    assert "not a valid TOML file" in capsys.readouterr().err
    assert cfg.read_text() == "cache = [\n"
