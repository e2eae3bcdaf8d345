#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# symofan_man.py - writes symofan(8) from its template (man/symofan.8.in),
# filling the line "@COMMANDS@" with every command of the built agent as
# its own --help describes it (synopsis, one line, details), so that the
# page and the program cannot drift apart.  A build tool:
#   man/symofan_man.py man/symofan.8.in build/symofan > symofan.8
import subprocess
import sys


def run_help(symofan, words):
    """The --help text of 'symofan WORDS', which exits 0 or 2."""
    proc = subprocess.run([symofan, *words, "--help"], capture_output=True,
                          text=True, check=False)
    text = proc.stdout + proc.stderr
    if not text.startswith("Usage: "):
        sys.exit(f"symofan_man.py: 'symofan {' '.join(words)} --help' "
                 f"printed no usage: {text[:200]!r}")
    return text.splitlines()


def roff(text):
    """Plain text as roff: backslashes and dashes escaped, no leading dot."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def subcommands(lines):
    """The 'symofan GROUP SUB' words a group's usage lists."""
    subs = []
    for line in lines[1:]:
        words = line.split()
        if line.startswith("  symofan ") and len(words) >= 3:
            subs.append(words[1:3])
    return subs


def command_entry(symofan, words):
    lines = run_help(symofan, words)
    synopsis = lines[0][len("Usage: symofan "):]
    out = [".TP", f".B symofan {roff(' '.join(words))}"]
    rest = synopsis[len(" ".join(words)):].strip()
    if rest:
        out[-1] += " " + f"\\fI{roff(rest)}\\fR"
    in_list = False
    for line in lines[1:]:
        if not line.strip():
            continue
        listed = line.startswith("    ")
        if listed and not in_list:
            out += [".RS", ".nf"]
        elif not listed and in_list:
            out += [".fi", ".RE"]
        in_list = listed
        out.append(roff(line.strip() if not listed else line[4:]))
        if line is lines[1] and not listed:
            out.append(".br")
    if in_list:
        out += [".fi", ".RE"]
    return out


def commands(symofan):
    top = run_help(symofan, [])
    out = []
    for line in top[1:]:
        words = line.split()
        if not line.startswith("  symofan ") or len(words) < 2:
            continue
        group = words[1]
        if len(words) > 2 and words[2] == "COMMAND":
            out += [".SS " + roff(f"symofan {group}"),
                    roff(top[top.index(line) + 1].strip()) + "."]
            for sub in subcommands(run_help(symofan, [group])):
                out += command_entry(symofan, sub)
        else:
            out += [".SS " + roff(f"symofan {group}")]
            out += command_entry(symofan, [group])
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: symofan_man.py TEMPLATE SYMOFAN > symofan.8")
    with open(sys.argv[1], encoding="utf-8") as template:
        for line in template:
            if line == "@COMMANDS@\n":
                print("\n".join(commands(sys.argv[2])))
            else:
                sys.stdout.write(line)


if __name__ == "__main__":
    main()
