"""Reads a callgrind dump: instructions, calls to malloc and write transactions committed, so
that a profile can divide them by the requests it made.

Usage: profile_callgrind.py DUMP  → prints "instructions malloc_calls commits"
"""

import re
import sys

# SQLite calls this once per write transaction it commits, in any of the server's files (the
# request log's commits, one per many requests, included). The writer's own functions are no
# measure: the optimiser inlines them into one another.
COMMIT = "sqlite3PagerCommitPhaseOne"


def main() -> None:
    names: dict[str, str] = {}
    instructions = 0
    malloc_calls = 0
    commits = 0
    callee = ""
    pending_calls = 0

    def name_of(text: str) -> str:
        # Compressed names: "(12) full name" defines id 12, "(12)" refers to it.
        match = re.match(r"\((\d+)\)(?: (.*))?", text)
        if not match:
            return text
        if match.group(2) is not None:
            names[match.group(1)] = match.group(2)
        return names.get(match.group(1), "")

    with open(sys.argv[1], errors="replace") as dump:
        for line in dump:
            if line.startswith("summary:") or line.startswith("totals:"):
                instructions = int(line.split()[1])
            elif line.startswith("fn="):
                name_of(line[3:].strip())
            elif line.startswith("cfn="):
                callee = name_of(line[4:].strip())
            elif line.startswith("calls="):
                pending_calls = int(line[6:].split()[0])
                if callee in ("malloc", "__libc_malloc"):
                    malloc_calls += pending_calls
                elif callee == COMMIT:
                    commits += pending_calls
    print(instructions, malloc_calls, commits)


if __name__ == "__main__":
    main()
