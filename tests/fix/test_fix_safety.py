"""`fix --write` never loses an edit, never writes where it was not asked, and survives any input.

Each test is a repro that once lost data, wrote outside the given paths, or ended in a traceback:
a file changed while fixing, a symbolic link, a deleted file, a full disk, a read-only directory,
pathological but valid source, encodings that are not ASCII-compatible.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_servers import EXPOSED as SERVER

import mcp_codemod.fix.apply
from mcp_codemod.cli import main

GUARDED_IMPORT = "from mcp_codemod.runtime import GuardedFastMCP"
FIXED_LINE = "def search(query: Annotated[str | None, NoPreParse] = None) -> str:"


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def fix(cwd: Path, *args: str):
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["fix", "--write", "--no-cache", *args])
    finally:
        os.chdir(previous)


def lines(output: str) -> list[str]:
    return output.splitlines()


# ---- compare and swap -------------------------------------------------------------------------

APPENDED = "# saved by an editor while fix ran\n"


def append_to(path: Path) -> None:
    with path.open("a", encoding="utf-8") as stream:
        stream.write(APPENDED)


@pytest.mark.parametrize(
    "moment",
    [
        "after the analysis",  # before the fixer reads the file
        "while transforming",  # after the fixer read it
        "while writing",  # after the temporary file is written, before the rename
    ],
)
def test_an_edit_made_while_fixing_survives(tmp_path, monkeypatch, moment):
    write_files(tmp_path, {"a.py": SERVER, "b.py": SERVER})
    b = tmp_path / "b.py"
    if moment == "after the analysis":
        plan = mcp_codemod.fix.apply.plan

        def plan_then_edit(*args):
            append_to(b)
            return plan(*args)

        monkeypatch.setattr(mcp_codemod.fix.apply, "plan", plan_then_edit)
    elif moment == "while transforming":
        edit = mcp_codemod.fix.apply.edit
        calls = []

        def edit_and_edit(text, file_plan, **options):
            calls.append(file_plan)
            if len(calls) == 2:  # b.py: files are fixed in order
                append_to(b)
            return edit(text, file_plan, **options)

        monkeypatch.setattr(mcp_codemod.fix.apply, "edit", edit_and_edit)
    else:
        mkstemp = tempfile.mkstemp

        def mkstemp_and_edit(*args, **kwargs):
            made = mkstemp(*args, **kwargs)
            if ".b.py." in made[1]:
                append_to(b)
            return made

        monkeypatch.setattr(tempfile, "mkstemp", mkstemp_and_edit)

    result = fix(tmp_path, ".")

    assert result.exit_code == 1, result.output
    assert "b.py: error: changed while fixing; left unchanged, run fix again" in lines(
        result.output
    )
    assert "Traceback" not in result.output
    assert b.read_text(encoding="utf-8").endswith(APPENDED)
    assert FIXED_LINE not in b.read_text(encoding="utf-8")
    assert FIXED_LINE in (tmp_path / "a.py").read_text(encoding="utf-8")
    assert sorted(os.listdir(tmp_path)) == ["a.py", "b.py"]  # no temporary file left
    # Run again, as the message says: now b.py is fixed with the editor's line kept.
    monkeypatch.undo()
    again = fix(tmp_path, ".")
    assert again.exit_code == 0, again.output
    assert FIXED_LINE in b.read_text(encoding="utf-8")
    assert b.read_text(encoding="utf-8").endswith(APPENDED)


def test_a_concurrent_writer_thread_never_loses_its_edit(tmp_path, monkeypatch):
    """A real second thread saves the file at the moment between the fixer's read and its
    write (two barriers make the interleaving deterministic)."""
    import threading

    write_files(tmp_path, {"server.py": SERVER})
    path = tmp_path / "server.py"
    read_done, edit_done = threading.Barrier(2), threading.Barrier(2)
    edit = mcp_codemod.fix.apply.edit

    def edit_between(text, file_plan, **options):
        read_done.wait(timeout=30)
        edit_done.wait(timeout=30)
        return edit(text, file_plan, **options)

    def editor():
        read_done.wait(timeout=30)
        path.write_text(SERVER.replace("demo", "renamed"), encoding="utf-8")
        edit_done.wait(timeout=30)

    monkeypatch.setattr(mcp_codemod.fix.apply, "edit", edit_between)
    thread = threading.Thread(target=editor)
    thread.start()
    result = fix(tmp_path, "server.py")
    thread.join()

    assert result.exit_code == 1
    assert path.read_text(encoding="utf-8") == SERVER.replace("demo", "renamed")


# ---- symbolic links ---------------------------------------------------------------------------


def test_a_symlinked_file_stays_a_link_and_its_target_is_fixed(tmp_path):
    write_files(tmp_path, {"real/server.py": SERVER})
    (tmp_path / "link.py").symlink_to("real/server.py")

    result = fix(tmp_path, "link.py")

    assert result.exit_code == 0, result.output
    assert (tmp_path / "link.py").is_symlink()
    assert os.readlink(tmp_path / "link.py") == "real/server.py"
    assert FIXED_LINE in (tmp_path / "real" / "server.py").read_text(encoding="utf-8")
    assert sorted(os.listdir(tmp_path / "real")) == ["server.py"]


def test_a_link_and_its_target_in_the_tree_are_fixed_once(tmp_path):
    write_files(tmp_path, {"server.py": SERVER})
    (tmp_path / "alias.py").symlink_to("server.py")

    result = fix(tmp_path, ".")

    assert result.exit_code == 0, result.output
    assert (tmp_path / "alias.py").is_symlink()
    assert (tmp_path / "server.py").read_text(encoding="utf-8").count("NoPreParse]") == 1


def test_a_link_found_in_a_directory_to_a_file_outside_it_is_not_written(tmp_path):
    write_files(tmp_path, {"outside/server.py": SERVER, "proj/other.py": "x = 1\n"})
    (tmp_path / "proj" / "link.py").symlink_to("../outside/server.py")

    result = fix(tmp_path / "proj", ".")

    assert (tmp_path / "outside" / "server.py").read_text(encoding="utf-8") == SERVER
    assert (tmp_path / "proj" / "link.py").is_symlink()
    assert "link.py:7: note: the annotation is outside the given paths" in result.output
    assert "link.py:3: note: the server is constructed outside the given paths" in result.output
    # The finding stays, and the command that fixes it names the file the link leads to.
    assert result.exit_code == 1, result.output
    assert (
        "  help: its fix edits ../outside/server.py, outside the given paths: "
        "`mcp-codemod fix --write . ../outside/server.py`"
    ) in lines(result.output)


# ---- one file's failure is that file's --------------------------------------------------------


def test_a_file_deleted_before_the_fixer_reads_it(tmp_path, monkeypatch):
    write_files(tmp_path, {"a.py": SERVER, "b.py": SERVER})
    plan = mcp_codemod.fix.apply.plan

    def plan_then_delete(*args):
        (tmp_path / "a.py").unlink()
        return plan(*args)

    monkeypatch.setattr(mcp_codemod.fix.apply, "plan", plan_then_delete)
    result = fix(tmp_path, ".")

    assert result.exit_code == 1
    assert "a.py: error: cannot read: No such file or directory" in lines(result.output)
    assert FIXED_LINE in (tmp_path / "b.py").read_text(encoding="utf-8")


def test_a_file_deleted_before_it_is_written(tmp_path, monkeypatch):
    write_files(tmp_path, {"a.py": SERVER, "b.py": SERVER})
    write = mcp_codemod.fix.apply.write

    def delete_then_write(change):
        if change.path == "a.py":
            (tmp_path / "a.py").unlink()
        write(change)

    monkeypatch.setattr(mcp_codemod.fix.apply, "write", delete_then_write)
    result = fix(tmp_path, ".")

    assert result.exit_code == 1
    assert "a.py: error: cannot write: No such file or directory; left unchanged" in lines(
        result.output
    )
    assert not (tmp_path / "a.py").exists()
    assert FIXED_LINE in (tmp_path / "b.py").read_text(encoding="utf-8")


def test_a_full_disk_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    write_files(tmp_path, {"a.py": SERVER, "b.py": SERVER})
    fsync = os.fsync
    calls = []

    def fsync_on_a_full_disk(descriptor):
        calls.append(descriptor)
        if len(calls) == 1:  # a.py, written first
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync_on_a_full_disk)
    result = fix(tmp_path, ".")

    assert result.exit_code == 1
    assert "a.py: error: cannot write: No space left on device; left unchanged" in lines(
        result.output
    )
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == SERVER
    assert FIXED_LINE in (tmp_path / "b.py").read_text(encoding="utf-8")
    assert sorted(os.listdir(tmp_path)) == ["a.py", "b.py"]


def test_a_read_only_directory_is_one_line(tmp_path, monkeypatch):
    """Tests run as root, where chmod does not stop writes: the directory refuses through
    the call that creates the temporary file, as a read-only one does."""
    write_files(tmp_path, {"ro/a.py": SERVER, "rw/b.py": SERVER})
    mkstemp = tempfile.mkstemp

    def read_only(*args, dir=None, **kwargs):
        if Path(dir).name == "ro":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    result = fix(tmp_path, ".")

    assert result.exit_code == 1
    assert "ro/a.py: error: cannot write: Permission denied; left unchanged" in lines(result.output)
    assert (tmp_path / "ro" / "a.py").read_text(encoding="utf-8") == SERVER
    assert FIXED_LINE in (tmp_path / "rw" / "b.py").read_text(encoding="utf-8")


def test_eight_hundred_chained_aliases_are_one_line_not_a_crash(tmp_path):
    chain = ["A0 = str | None", *(f"A{i} = A{i - 1}" for i in range(1, 800))]
    deep = SERVER.replace('mcp = FastMCP("demo")', "\n".join(['mcp = FastMCP("demo")', *chain]))
    deep = deep.replace("query: str | None", "query: A799")
    write_files(tmp_path, {"deep.py": deep, "server.py": SERVER})

    checked = CliRunner().invoke(main, ["check", "--no-cache", str(tmp_path)])
    fixed = fix(tmp_path, ".")

    assert "Traceback" not in checked.output + fixed.output
    assert "server.py:7:12: MCP001" in checked.output
    assert (
        "deep.py:807: `query`: its annotation nests more than 100 type aliases; too deep to follow"
        in checked.output
    )
    # The unchecked tool's server is guarded: nothing is left, and no note says it is unprotected.
    assert fixed.exit_code == 0, fixed.output
    assert "unprotected" not in fixed.output
    assert FIXED_LINE in (tmp_path / "server.py").read_text(encoding="utf-8")
    # The parameter it cannot follow is left as it is; its server is guarded (MCP004, safe).
    guarded = deep.replace("from mcp.server.fastmcp import FastMCP", GUARDED_IMPORT)
    guarded = guarded.replace('mcp = FastMCP("demo")', 'mcp = GuardedFastMCP("demo")')
    assert (tmp_path / "deep.py").read_text(encoding="utf-8") == guarded


def test_a_ten_thousand_term_expression_beside_a_fixable_tool(tmp_path):
    long = "a = 1\nb = " + " and ".join(["a"] * 10_000) + "\n"
    write_files(tmp_path, {"server.py": SERVER + long})

    result = subprocess.run(
        [sys.executable, "-m", "mcp_codemod", "fix", "--write", "--no-cache", "server.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert result.returncode == 0, result.stderr[-2000:]
    assert FIXED_LINE in (tmp_path / "server.py").read_text(encoding="utf-8")


# ---- where fix writes -------------------------------------------------------------------------

ALIAS_MODULE = """\
from typing import Optional

Query = Optional[str]
"""
USES_ALIAS = SERVER.replace(
    "from mcp.server.fastmcp import FastMCP", "from mcp.server.fastmcp import FastMCP\n\nfrom {}"
).replace("query: str | None", "query: Query")


def test_an_alias_in_a_parent_directory_is_not_written_the_parameter_is_marked(tmp_path):
    write_files(
        tmp_path,
        {
            "common.py": ALIAS_MODULE,
            "proj/server.py": USES_ALIAS.format("common import Query"),
        },
    )
    (tmp_path / "proj" / "__init__.py").write_text("", encoding="utf-8")

    result = fix(tmp_path / "proj", ".")

    assert result.exit_code == 0, result.output
    assert "note:" not in result.output
    assert (tmp_path / "common.py").read_text(encoding="utf-8") == ALIAS_MODULE
    server = (tmp_path / "proj" / "server.py").read_text(encoding="utf-8")
    assert "def search(query: Annotated[Query, NoPreParse] = None) -> str:" in server
    assert "GuardedFastMCP" in server


@pytest.mark.parametrize(
    ("setting", "files"),
    [
        ("extend-exclude", {"pyproject.toml": '[tool.mcp-codemod]\nextend-exclude = ["vendor"]\n'}),
        ("gitignore", {".gitignore": "vendor/\n", ".git/HEAD": ""}),
    ],
)
def test_an_alias_in_an_excluded_or_ignored_folder_is_not_written(tmp_path, setting, files):
    write_files(
        tmp_path,
        {
            **files,
            "vendor/__init__.py": "",
            "vendor/common.py": ALIAS_MODULE,
            "server.py": USES_ALIAS.format("vendor.common import Query"),
        },
    )

    result = fix(tmp_path, ".")

    assert result.exit_code == 0, result.output
    assert (tmp_path / "vendor" / "common.py").read_text(encoding="utf-8") == ALIAS_MODULE
    assert "Annotated[Query, NoPreParse]" in (tmp_path / "server.py").read_text(encoding="utf-8")


# ---- encodings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "message"),
    [
        ("utf-7", "encoded in utf-7, which is not ASCII-compatible; left unchanged"),
        ("iso-2022-jp", "encoded in iso-2022-jp, which is not ASCII-compatible; left unchanged"),
        ("utf-16", "not valid utf-16"),
    ],
)
def test_an_encoding_that_is_not_ascii_compatible_is_left_alone(tmp_path, encoding, message):
    text = f"# -*- coding: {encoding} -*-\n# 検索 + サーバー\n" + SERVER
    data = text.encode(encoding) if encoding != "utf-16" else text.encode("ascii", "replace")
    (tmp_path / "odd.py").write_bytes(data)
    write_files(tmp_path, {"server.py": SERVER})

    result = fix(tmp_path, ".")

    assert (tmp_path / "odd.py").read_bytes() == data
    [line] = [line for line in lines(result.output) if line.startswith("odd.py: error: ")]
    assert message in line
    assert result.exit_code == 1
    if encoding != "utf-16":  # a file that cannot be decoded has no findings to leave
        assert "  help: its fix could not be applied (see the errors above)" in lines(result.output)
    assert FIXED_LINE in (tmp_path / "server.py").read_text(encoding="utf-8")


def test_text_that_would_not_encode_back_to_the_same_bytes_is_left_alone(tmp_path):
    # In cp932, b"\x87\x90" decodes to "≒", which encodes back as b"\x81\xe0".
    data = b"# -*- coding: cp932 -*-\n# \x87\x90\n" + SERVER.encode("ascii")
    (tmp_path / "odd.py").write_bytes(data)

    result = fix(tmp_path, ".")

    assert (tmp_path / "odd.py").read_bytes() == data
    assert (
        "odd.py: error: its cp932 text does not encode back to the same bytes; left unchanged"
        in lines(result.output)
    )
    assert result.exit_code == 1


# ---- output that cannot be written --------------------------------------------------------------


def run_cli(*args: str, cwd: Path, stdout) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_codemod", *args],
        cwd=cwd,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )


def test_stdout_on_a_full_device_is_one_line_and_exit_2(tmp_path):
    write_files(tmp_path, {"server.py": SERVER})
    with open("/dev/full", "w") as full:
        result = run_cli("check", "--no-cache", ".", cwd=tmp_path, stdout=full)

    assert result.returncode == 2
    assert result.stderr == "mcp-codemod: error: cannot write the output: No space left on device\n"


def test_a_closed_pipe_ends_quietly(tmp_path):
    write_files(tmp_path, {"server.py": SERVER})
    read_end, write_end = os.pipe()
    os.close(read_end)  # as `| head` does once it has its lines
    with os.fdopen(write_end, "w") as pipe:
        result = run_cli("check", "--no-cache", ".", cwd=tmp_path, stdout=pipe)

    assert result.stderr == ""
    assert result.returncode == 1
