"""``scopeflow graphdiff A B``: the nodes of graph A missing from graph B, those B adds,
and those both have that differ (op type, inputs, device, attrs), in creation order.

    scopeflow graphdiff tf.meta mine.meta          # MetaGraphDefs
    scopeflow graphdiff graph.pbtxt other.pb       # GraphDefs, text or binary
    scopeflow graphdiff --ignore-attr _class a.meta b.meta
    scopeflow graphdiff --json a.meta b.meta

Lines: ``- name (Op)`` only in A, ``+ name (Op)`` only in B, ``~ name (Op)`` in both and
different, with one indented ``what: A's -> B's`` line per difference; then a summary.
The order is A's node creation order (see ``scopeflow.tools.graphdiff``), the order that
gives unseeded random ops their seeds. Exit status as ``diff``: 0 the same, 1 different
(or a file could not be read), 2 a usage mistake.
"""

from __future__ import annotations

from scopeflow.platform.cli_conventions import EXIT_FAILURE, EXIT_OK, epilog, fail, print_json
from scopeflow.tools import graphdiff


def _graphdiff(args) -> int:
    try:
        a = graphdiff.load_nodes(args.a)
        b = graphdiff.load_nodes(args.b)
    except (OSError, ValueError) as e:
        return fail("graphdiff", e)
    diff = graphdiff.diff_graphs(a, b, ignore_attrs=args.ignore_attr,
                                 compare_device=not args.ignore_device)
    if args.json:
        print_json({"a": args.a, "b": args.b, **diff.as_dict()})
    else:
        for line in graphdiff.format_diff(diff, args.a, args.b):
            print(line)
    return EXIT_OK if diff.same else EXIT_FAILURE


def add_parser(subparsers):
    """Adds the ``graphdiff`` subcommand to the ``scopeflow`` command line."""
    p = subparsers.add_parser(
        "graphdiff", help="compare two graphs (.meta, .pb, .pbtxt) node by node",
        description=__doc__.split("\n\n")[0], epilog=epilog("the graphs differ"))
    p.add_argument("a", help="the first graph: a MetaGraphDef (.meta) or GraphDef (.pb, .pbtxt)")
    p.add_argument("b", help="the second graph, compared with the first")
    p.add_argument("--ignore-attr", action="append", default=[], metavar="NAME",
                   help="leave this attr out of the comparison (repeatable)")
    p.add_argument("--ignore-device", action="store_true", help="do not compare devices")
    p.add_argument("--json", action="store_true", help="print one JSON document instead")
    p.set_defaults(func=_graphdiff)
