"""What every benchmark's command line shares: ``--help`` shows each option's default, and ``--smoke``.

``--smoke`` runs a bench at tiny sizes (the values the bench names, shown by ``--help``): not a measurement (its
figures mean nothing) but a check that the bench still runs against today's pages, commands and files.
``tests/integration/test_benchmarks.py`` runs every bench so.
"""
import argparse

__all__ = ["parser", "parse"]


def parser(doc: str, smoke: dict) -> argparse.ArgumentParser:
    """The bench's parser: its docstring's first line as the description, defaults shown, ``--smoke`` setting
    ``smoke``'s options (``{"n": 3}``: ``--n 3``)."""
    sizes = " ".join(f"--{name.replace('_', '-')} {value}" for name, value in smoke.items())
    made = argparse.ArgumentParser(description=doc.strip().splitlines()[0],
                                   formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    made.add_argument("--smoke", action="store_true",
                      help=f"tiny sizes ({sizes or 'one round'}): does the bench still run? Its figures mean nothing")
    made.set_defaults(smoke_sizes=smoke)
    return made


def parse(made: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    """The arguments, the smoke sizes in place of the others' when ``--smoke`` was given."""
    args = made.parse_args(argv)
    if args.smoke:
        for name, value in args.smoke_sizes.items():
            setattr(args, name, value)
    return args
