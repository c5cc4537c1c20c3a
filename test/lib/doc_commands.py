#!/usr/bin/env python3
"""Runs every shell command of a Markdown document, as written.

The commands are the lines of its ```sh and ```bash blocks (a trailing
backslash continues a line; `#` comments and blank lines are skipped). They
run in order, in one bash session (so a variable or a file one command makes
is there for the next), in a fresh directory that holds the source tree's
top-level entries as symbolic links and `build` pointing at the build tree
under test, with HOME set to a fresh directory too. A command fails the test
when it exits non-zero; `# expect-fail` at the end of its line says that it
must fail (a documented error), and the test then fails when it succeeds.

Commands that cannot run here are listed in the skip list (default
test/Docs/skip.txt), one per line:

    <substring of the command> | <feature, or always> | <reason>

A command containing the substring is skipped when the lit feature is
absent (or always), and the reason is printed. Every skip list entry must
match a command of some document (--check-skip-list), so that the list does
not rot.
"""

import argparse
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile


def commands(path):
    """(line number, command) of every shell block of the document."""
    out = []
    in_block = False
    pending, start = "", 0
    for n, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        fence = line.strip()
        if fence.startswith("```"):
            if in_block:
                in_block = False
            elif fence[3:].strip() in ("sh", "bash", "shell"):
                in_block = True
            elif fence[3:].strip() in ("console",):
                raise SystemExit(f"{path}:{n}: use ```sh for commands")
            continue
        if not in_block:
            continue
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if not pending:
            start = n
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        out.append((start, pending + stripped))
        pending = ""
    return out


def read_skip_list(path):
    entries = []
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3:
            raise SystemExit(f"{path}: bad line '{line}' (want pattern | "
                             "feature | reason)")
        entries.append(tuple(parts))
    return entries


def main():
    p = argparse.ArgumentParser()
    p.add_argument("docs", nargs="+")
    p.add_argument("--src", required=True)
    p.add_argument("--build", required=True)
    p.add_argument("--features", default="")
    p.add_argument("--skip-list", required=True)
    p.add_argument("--check-skip-list", action="store_true",
                   help="only check that every entry matches a command")
    args = p.parse_args()
    features = set(args.features.split(","))
    skips = read_skip_list(args.skip_list)
    all_commands = {doc: commands(doc) for doc in args.docs}

    if args.check_skip_list:
        unused = [s for s in skips if not any(
            s[0] in c for cmds in all_commands.values() for _, c in cmds)]
        for s in unused:
            print(f"doc-commands: skip list entry '{s[0]}' matches no command")
        return 1 if unused else 0

    src = pathlib.Path(args.src).resolve()
    failures = 0
    for doc, cmds in all_commands.items():
        name = os.path.relpath(doc, src)
        with tempfile.TemporaryDirectory(prefix="xpu-docs-") as tmp:
            work = pathlib.Path(tmp) / "tree"
            work.mkdir()
            for entry in src.iterdir():
                if entry.name in ("build", ".git"):
                    continue
                (work / entry.name).symlink_to(entry)
            (work / "build").symlink_to(pathlib.Path(args.build).resolve())
            home = pathlib.Path(tmp) / "home"
            home.mkdir()
            script = ["set -o pipefail"]
            for line, cmd in cmds:
                where = f"{name}:{line}"
                skip = next((s for s in skips if s[0] in cmd and
                             (s[1] == "always" or s[1] not in features)),
                            None)
                if skip:
                    script.append("echo " + shlex.quote(
                        f"SKIP {where}: {cmd}  -- {skip[2]}"))
                    continue
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", cmd):
                    # A variable for the commands after it.
                    script.append("echo " + shlex.quote(f"RUN  {where}: {cmd}")
                                  + "\n" + cmd)
                    continue
                expect_fail = cmd.rstrip().endswith("# expect-fail")
                run = ("echo " + shlex.quote(f"RUN  {where}: {cmd}") + "\n" +
                       "( " + cmd + "\n) > cmd.out 2>&1; status=$?\n" +
                       "cat cmd.out | head -c 4000; echo\n")
                if expect_fail:
                    run += ("if [ $status -eq 0 ]; then echo " +
                            shlex.quote(f"FAIL {where}: succeeded, but the "
                                        "docs say it fails") +
                            "; failures=$((failures+1)); fi\n")
                else:
                    run += ("if [ $status -ne 0 ]; then echo " +
                            shlex.quote(f"FAIL {where}: exit") +
                            " $status; failures=$((failures+1)); fi\n")
                script.append(run)
            script.append("exit $failures")
            env = dict(os.environ, HOME=str(home))
            result = subprocess.run(["bash", "-c", "failures=0\n" +
                                     "\n".join(script)], cwd=work, env=env,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            sys.stdout.write(result.stdout)
            failures += result.returncode
            print(f"doc-commands: {name}: {len(cmds)} commands, "
                  f"{result.stdout.count('SKIP ')} skipped, "
                  f"{result.returncode} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
