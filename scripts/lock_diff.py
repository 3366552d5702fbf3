"""Which pinned versions differ between two requirement files: ``requirements.lock`` and what ``make test-upgrade`` resolved.

    python scripts/lock_diff.py requirements.lock .state/upgrade/newest.txt

Prints one line per package whose version differs (``nbclient  0.11.0 -> 0.12.1``), then packages found in only
one of the two, then a count. Read ``name==version`` lines only (hashes, comments and markers are skipped).
"""
import re
import sys

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def pins(text: str) -> dict:
    """``{normalised name: version}`` of the ``name==version`` lines of a requirements file."""
    found = {}
    for line in text.splitlines():
        match = PIN.match(line.strip())
        if match:
            found[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return found


def differences(locked: dict, newest: dict) -> list:
    """Lines saying what differs between ``locked`` and ``newest`` (both ``{name: version}``)."""
    width = max(map(len, [*locked, *newest]), default=0)
    lines = [f"{name:<{width}}  {locked[name]} -> {newest[name]}"
             for name in sorted(locked.keys() & newest.keys()) if locked[name] != newest[name]]
    lines += [f"{name:<{width}}  {locked[name]} -> (no longer needed)" for name in sorted(locked.keys() - newest.keys())]
    lines += [f"{name:<{width}}  (new) -> {newest[name]}" for name in sorted(newest.keys() - locked.keys())]
    return lines


def main(argv: list) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as lock, open(argv[1], encoding="utf-8") as newest:
        locked, resolved = pins(lock.read()), pins(newest.read())
    lines = differences(locked, resolved)
    print(f"newest allowed versions against {argv[0]}: {len(lines)} of {len(resolved)} packages differ")
    print("\n".join(f"  {line}" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
