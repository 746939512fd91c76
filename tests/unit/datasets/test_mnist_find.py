"""Where tests (and other readers) find MNIST: ``mnist.find_mnist_dir``'s order and messages.

``$SCOPEFLOW_MNIST_DIR`` first, then the directories searched (the tests pass
``../shared/datasets/mnist``), then the user's cache, downloading into it. All offline:
files are stand-ins, downloads come from ``file://`` mirrors or a patched ``urlopen``.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import struct
import urllib.error
from pathlib import Path

import pytest

from scopeflow.datasets import mnist

TESTS = Path(__file__).resolve().parents[2]


def _holding(directory, names=mnist.TEST_FILES):
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (directory / name).write_bytes(b"stand-in " + name.encode())
    return directory


@pytest.fixture
def env(tmp_path, monkeypatch):
    """No $SCOPEFLOW_MNIST_DIR, downloads allowed, the cache under tmp_path, no network."""
    monkeypatch.delenv(mnist.MNIST_DIR_ENV, raising=False)
    monkeypatch.delenv(mnist.DOWNLOAD_ENV, raising=False)
    monkeypatch.delenv("SCOPEFLOW_REQUIRE_MNIST", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    calls = []

    def offline(url, timeout=None):
        calls.append((url, timeout))
        raise urllib.error.URLError("offline")

    monkeypatch.setattr(mnist.urllib.request, "urlopen", offline)
    return calls


def test_cache_dir_follows_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert mnist.default_cache_dir() == str(tmp_path / "xdg" / "scopeflow" / "mnist")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for relative_or_unset in ("relative/cache", None):
        if relative_or_unset is None:
            monkeypatch.delenv("XDG_CACHE_HOME")
        else:
            monkeypatch.setenv("XDG_CACHE_HOME", relative_or_unset)
        assert mnist.default_cache_dir() == str(tmp_path / "home" / ".cache" / "scopeflow" /
                                                "mnist")


def test_env_var_wins_then_search_dirs_then_cache(tmp_path, monkeypatch, env):
    chosen = _holding(tmp_path / "chosen")
    shared = _holding(tmp_path / "shared")
    _holding(Path(mnist.default_cache_dir()))
    monkeypatch.setenv(mnist.MNIST_DIR_ENV, str(chosen))
    assert mnist.find_mnist_dir(search=[shared]) == str(chosen)
    monkeypatch.delenv(mnist.MNIST_DIR_ENV)
    assert mnist.find_mnist_dir(search=[tmp_path / "absent", shared]) == str(shared)
    assert mnist.find_mnist_dir(search=[tmp_path / "absent"]) == mnist.default_cache_dir()
    assert env == []                                  # nothing was downloaded


def test_only_the_files_asked_for_are_needed(tmp_path, env):
    shared = _holding(tmp_path / "shared")            # the t10k files only
    assert mnist.find_mnist_dir(mnist.TEST_FILES, search=[shared]) == str(shared)
    assert mnist.find_mnist_dir(search=[shared]) == str(shared)  # TEST_FILES by default
    with pytest.raises(mnist.MNISTUnavailableError, match=f"{shared}: lacks "
                       "train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz"):
        mnist.find_mnist_dir(list(mnist.FILES), search=[shared])


def test_plain_idx_files_count(tmp_path, env):
    plain = _holding(tmp_path / "plain", [n[:-3] for n in mnist.TEST_FILES])
    assert mnist.find_mnist_dir(search=[plain]) == str(plain)


def test_env_var_without_the_files_is_an_error_not_passed_over(tmp_path, monkeypatch, env):
    shared = _holding(tmp_path / "shared")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(mnist.MNIST_DIR_ENV, str(empty))
    with pytest.raises(mnist.MNISTUnavailableError) as info:
        mnist.find_mnist_dir(search=[shared])
    msg = str(info.value)
    assert f"SCOPEFLOW_MNIST_DIR={empty} does not hold the MNIST files " \
           "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz" in msg
    assert env == []


def test_download_into_the_cache_verified(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(mnist.MNIST_DIR_ENV, raising=False)
    monkeypatch.delenv(mnist.DOWNLOAD_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    files = dict(mnist.FILES)
    for name in mnist.TEST_FILES:   # small IDX stand-ins are "published" for this test
        raw = struct.pack(">2I", 2049, 3) + bytes([1, 2, 3])
        (mirror / name).write_bytes(gzip.compress(raw, mtime=0))
        files[name] = (hashlib.sha256((mirror / name).read_bytes()).hexdigest(),
                       hashlib.sha256(raw).hexdigest())
    monkeypatch.setattr(mnist, "FILES", files)
    monkeypatch.setattr(mnist, "MIRRORS", (tmp_path.as_uri() + "/nothing/",
                                           mirror.as_uri() + "/"))
    cache = mnist.default_cache_dir()
    assert mnist.find_mnist_dir(search=[tmp_path / "absent"]) == cache
    assert sorted(p.name for p in Path(cache).iterdir()) == sorted(mnist.TEST_FILES)
    assert capsys.readouterr().out.count("Successfully downloaded") == 2
    assert mnist.find_mnist_dir() == cache           # cached: no second download
    assert "Successfully downloaded" not in capsys.readouterr().out

    (mirror / mnist.TRAIN_LABELS).write_bytes(b"not the published file")
    with pytest.raises(mnist.MNISTUnavailableError, match="checksum mismatch: SHA-256 of "
                                                          "the download"):
        mnist.find_mnist_dir([mnist.TRAIN_LABELS])
    assert not (Path(cache) / mnist.TRAIN_LABELS).exists()


def test_offline_tries_each_mirror_once_with_a_short_timeout(tmp_path, env):
    with pytest.raises(mnist.MNISTUnavailableError) as info:
        mnist.find_mnist_dir(search=[tmp_path / "shared"], timeout=3)
    # The first missing file failed on every mirror: the second is not tried.
    assert env == [(m + mnist.TEST_IMAGES, 3) for m in mnist.MIRRORS]
    msg = str(info.value)
    assert msg.startswith("MNIST files t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz "
                          "not found:\n  SCOPEFLOW_MNIST_DIR: not set\n"
                          f"  {tmp_path / 'shared'}: no such directory\n")
    assert f"{mnist.MIRRORS[0]}{mnist.TEST_IMAGES}: offline" in msg
    assert "set SCOPEFLOW_MNIST_DIR=/path/to/dir" in msg
    assert "or allow the download" in msg and mnist.default_cache_dir() in msg


def test_download_switched_off(tmp_path, monkeypatch, env):
    monkeypatch.setenv(mnist.DOWNLOAD_ENV, "0")
    with pytest.raises(mnist.MNISTUnavailableError, match="downloading is off "
                       r"\(SCOPEFLOW_MNIST_DOWNLOAD=0\)"):
        mnist.find_mnist_dir()
    with pytest.raises(mnist.MNISTUnavailableError):
        mnist.find_mnist_dir(download=False)
    assert env == []


def _conftest():
    spec = importlib.util.spec_from_file_location("_tests_conftest_copy", TESTS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tests_skip_without_mnist_and_fail_when_ci_requires_it(tmp_path, monkeypatch, env):
    conftest = _conftest()
    with pytest.raises(pytest.skip.Exception) as info:
        conftest.find_mnist_test_set(shared=tmp_path / "shared")
    reason = str(info.value)
    assert reason.startswith("MNIST test set unavailable: MNIST files t10k-images")
    assert "set SCOPEFLOW_MNIST_DIR=/path/to/dir" in reason
    monkeypatch.setenv("SCOPEFLOW_REQUIRE_MNIST", "1")
    with pytest.raises(pytest.fail.Exception, match="SCOPEFLOW_REQUIRE_MNIST=1 but MNIST is "
                       "unavailable: MNIST files"):
        conftest.find_mnist_test_set(shared=tmp_path / "shared")
    shared = _holding(tmp_path / "shared")
    assert conftest.find_mnist_test_set(shared=shared) == shared
