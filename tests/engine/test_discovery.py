"""Discovery: .gitignore matched as git matches it, only regular files, explicit paths."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main
from mcp_codemod.engine.discovery import PathError, discover

FILES = [
    "a.py",
    "b.py",
    "Z.py",
    "z.py",
    "1.py",
    "_.py",
    "-.py",
    "].py",
    "[.py",
    "!.py",
    "#x.py",
    "^.py",
    "\\.py",
    "keep.py",
    "x.py",
    "sub/x.py",
    "sub/a.py",
    "sub/deep/y.py",
    "deep/q.py",
    "build/z.py",
]

# Each is a whole root .gitignore; `sub/.gitignore` is the part after `|`.
PATTERNS = [
    "[[:alpha:]].py",
    "[[:digit:][:upper:]].py",
    "[[:punct:]].py",
    "[z-a].py",
    "[z-a0-9].py",
    "[!a-z].py",
    "[^a].py",
    "[]].py",
    "[!]].py",
    "[\\]a].py",
    "[a-].py",
    "[[].py",
    "[a-c-e].py",
    "[[:foo:]].py",
    "[[:alpha:].py",
    "[.py",
    "\\#x.py",
    "\\!.py",
    "*.py\n!keep.py",
    "sub/\n!sub/x.py",
    "/a.py",
    "**/deep/*.py",
    "sub/**/y.py",
    "build",
    "x.py ",
    "a?py",
    "*.py|!x.py",
    "sub/*.py|a.py",
    "**/sub",
    "sub/**",
    "sub/**/",
    "**/deep/**",
    "**",
    "deep/**/q.py",
    "sub/**/deep",
    "*/x.py",
    "*/*/y.py",
    "s*b/",
    "*a*",
    "*.p*y",
    "*[!a]*.py",
    "[a-c]*.py",
    "*\\*",
    "x.py\\ ",
    "\\",
    "d*/",
    "/sub/deep",
    "sub//x.py",
    "!x.py",
    "*.py\n!sub/\n!sub/*.py",
    "**/*.py\n!**/a.py",
]


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=check
    )


@pytest.mark.parametrize("gitignore", PATTERNS)
def test_gitignore_matches_git_check_ignore(tmp_path, gitignore):
    repo = tmp_path / "repo"
    for name in FILES:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("x = 1\n", encoding="utf-8")
    root, _, nested = gitignore.partition("|")
    (repo / ".gitignore").write_text(root + "\n", encoding="utf-8")
    if nested:
        (repo / "sub" / ".gitignore").write_text(nested + "\n", encoding="utf-8")
    git(repo, "init", "--quiet")
    answer = subprocess.run(
        ["git", "check-ignore", "-z", "--stdin"],
        cwd=repo,
        input="\0".join(FILES),
        capture_output=True,
        text=True,
        env={key: value for key, value in os.environ.items() if not key.startswith("GIT_")},
    )
    assert answer.returncode in (0, 1), answer.stderr
    ignored_by_git = {name for name in answer.stdout.split("\0") if name}

    found = discover([repo], (), respect_gitignore=True)
    kept = {path.relative_to(repo).as_posix() for path in found}

    assert kept == set(FILES) - ignored_by_git


def test_a_pattern_git_never_matches_is_skipped_with_a_warning(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("[[:foo:]].py\nb.py\n", encoding="utf-8")
    for name in ("a.py", "b.py", "f.py"):
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")

    found = discover([tmp_path], (), respect_gitignore=True)

    assert [path.name for path in found] == ["a.py", "f.py"]
    warning = capsys.readouterr().err
    assert warning == (
        f"{tmp_path / '.gitignore'}:1: warning: pattern '[[:foo:]].py' skipped: "
        "unknown character class [:foo:]\n"
    )


def test_a_directory_given_inside_an_ignored_one_is_walked(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n", encoding="utf-8")
    (tmp_path / "build" / "gen").mkdir(parents=True)
    (tmp_path / "build" / "gen" / "server.py").write_text("x = 1\n", encoding="utf-8")

    assert discover([tmp_path], (), respect_gitignore=True) == []
    assert discover([tmp_path / "build" / "gen"], (), respect_gitignore=True) == [
        tmp_path / "build" / "gen" / "server.py"
    ]
    forced = discover([tmp_path / "build" / "gen"], (), respect_gitignore=True, force_exclude=True)
    assert forced == []


def test_a_fifo_in_the_tree_is_skipped_and_a_given_fifo_is_an_error(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")

    assert discover([tmp_path], (), respect_gitignore=False) == [tmp_path / "ok.py"]
    with pytest.raises(PathError, match="not a regular file"):
        discover([tmp_path / "x.py"], (), respect_gitignore=False)


@pytest.mark.parametrize("command", ["check", "fix"])
def test_commands_do_not_wait_on_a_fifo(tmp_path, monkeypatch, command):
    os.mkfifo(tmp_path / "x.py")
    monkeypatch.chdir(tmp_path)

    walked = CliRunner().invoke(main, [command, "--no-cache", "."])
    given = CliRunner().invoke(main, [command, "--no-cache", "x.py"])

    assert walked.exit_code == 0, walked.output
    assert given.exit_code == 2
    assert given.output == "mcp-codemod: error: x.py: not a regular file or a directory\n"


@pytest.mark.parametrize("command", ["check", "fix"])
def test_an_empty_path_is_a_usage_error(tmp_path, monkeypatch, command):
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    result = CliRunner().invoke(main, [command, "--no-cache", ""])

    assert result.exit_code == 2
    assert "an empty path names no file" in result.output


def test_force_exclude_applies_excludes_and_gitignore_to_given_paths(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n", encoding="utf-8")
    for name in ("src/a.py", "examples/b.py", "generated/c.py", "src/build/d.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    given = [
        Path(name) for name in ("src/a.py", "examples/b.py", "generated/c.py", "src/build/d.py")
    ]

    kept = discover(given, ("examples", "build"), respect_gitignore=True)
    forced = discover(given, ("examples", "build"), respect_gitignore=True, force_exclude=True)

    assert kept == sorted(given)
    assert forced == [Path("src/a.py")]


def test_a_pattern_of_many_stars_takes_linear_time(tmp_path):
    """`*a*a*…*b` against a long name of `a`s: every split of the name between the stars is a
    candidate, so a backtracking matcher (pathspec's regular expressions, git's wildmatch) runs
    for hours; this one takes one pass per piece."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*a" * 20 + "*b\n")
    for name in ("a" * 250 + "/x.py", "a" * 200 + ".py", "a" * 25 + "b/y.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from mcp_codemod.engine.discovery import discover\n"
        "root = Path(sys.argv[1])\n"
        "print(*sorted(p.relative_to(root).as_posix() for p in discover([root], (), True)))\n"
    )
    # A separate process: the exponential case would not return for hours.
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    # Only the directory whose name ends in `b` (after 20 `a`s or more) is ignored.
    assert run.stdout.split() == ["a" * 200 + ".py", "a" * 250 + "/x.py"]


@pytest.mark.parametrize("where", ["relative", "absolute", "both"])
def test_files_are_listed_once_each_in_the_order_paths_sort_in(tmp_path, monkeypatch, where):
    """Names whose text sorts otherwise than their parts (`a.b/` before `a/` as text, after
    it as a path), given again as files under other spellings: each file once, as `Path`s sort."""
    names = ["a.py", "a/b.py", "a.b/c.py", "a-b/c.py", "a/b/c.py", "ab.py", "a b/c.py", "a_/x.py"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    given = {
        "relative": [Path("."), Path("./a/b.py"), Path("a.b//c.py")],
        "absolute": [tmp_path, tmp_path / "a" / "b.py"],
        "both": [Path("."), tmp_path / "a.py", Path("a.py")],
    }[where]
    found = discover(given, ())
    assert found == sorted(set(found))
    assert {os.path.abspath(path) for path in found} == {str(tmp_path / name) for name in names}
    if where != "both":
        assert len(found) == len(names)


def test_exclusions_match_as_their_globs_do(tmp_path):
    """Names without a glob character are looked up, not matched: the verdicts are the regex's,
    for names, paths, and globs mixed with plain names."""
    from mcp_codemod.engine.discovery import _excluded, _exclusion

    patterns = (
        *("build", ".venv", "a.b", "src/gen", "x+y", "(paren)", "dot."),
        *("*.egg-info", "gen_?", "[ab]c", "sub/*/deep"),
    )
    texts = [
        *patterns,
        *("builds", "Build", "abuild", "a.b/c", "axb", "src/gen/x", "src", "x+y ", "dot"),
        *("pkg.egg-info", "a/b.egg-info", "gen_1", "gen_12", "ac", "bc", "cc", "sub/x/deep"),
        *("sub/x/y/deep", ".venv/x", "", "(paren)x", "dot.x"),
    ]
    for chosen in (patterns, patterns[:7], patterns[7:], ()):
        regex = _exclusion(chosen).match
        excluded = _excluded(chosen)
        for text in texts:
            assert bool(excluded(text)) == bool(regex(text)), (chosen, text)
