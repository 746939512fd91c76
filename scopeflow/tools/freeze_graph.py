"""TF's ``freeze_graph`` tool (``tensorflow.python.tools.freeze_graph``): a graph and its
variables' values (a checkpoint, or a SavedModel) made into one GraphDef of constants.

    python -m scopeflow.tools.freeze_graph --input_graph=graph.pbtxt \\
        --input_checkpoint=/tmp/model.ckpt --output_node_names=softmax \\
        --output_graph=/tmp/frozen.pb
    python -m scopeflow.tools.freeze_graph --input_saved_model_dir=/tmp/export \\
        --output_node_names=softmax --output_graph=/tmp/frozen.pb

    from scopeflow.tools import freeze_graph
    freeze_graph.freeze_graph(input_graph, "", True, checkpoint, "softmax",
                              "save/restore_all", "save/Const:0", "/tmp/frozen.pb",
                              True, "")

The variables come from, in TF's order of preference: a ``SaverDef`` (``input_saver``);
a ``MetaGraphDef`` (``--input_meta_graph``, whose saver restores the checkpoint); a
SavedModel (``--input_saved_model_dir`` with ``--saved_model_tags``, loaded as
``loader.load`` loads it); else the checkpoint's tensors restored into the graph's
variables of the same names. ``--initializer_nodes`` run after the restore (checkpoint and
meta graph only, as in TF). Then ``graph_util.convert_variables_to_constants`` keeps what
``--output_node_names`` need, converting the variables the whitelist names (all, if empty)
and not the blacklist (``--variable_names_blacklist``, TF 2's
``--variable_names_denylist``). The GraphDef is written to ``--output_graph`` (binary,
deterministic) and returned. Only V2 checkpoints are read (``--checkpoint_version=1``
raises NotImplementedError); ``restore_op_name`` and ``filename_tensor_name`` are unused,
as in TF.
"""

from __future__ import annotations

import argparse
import re
import sys

from google.protobuf import text_format

from scopeflow.framework.graph import Graph
from scopeflow.framework.graph_import import import_graph_def
from scopeflow.framework.graph_util import convert_variables_to_constants
from scopeflow.io import protos
from scopeflow.platform import gfile
from scopeflow.runtime.session import Session
from scopeflow.saved_model import loader_impl
from scopeflow.saved_model.tag_constants import SERVING
from scopeflow.train import checkpoint_management
from scopeflow.train.checkpoint_utils import NewCheckpointReader
from scopeflow.train.meta_graph_import import import_meta_graph
from scopeflow.train.saver import Saver

__all__ = ["freeze_graph", "freeze_graph_with_def_protos", "main", "run_main"]

_V1, _V2 = protos.SaverDef.V1, protos.SaverDef.V2


def _has_no_variables(sess) -> bool:
    return not any(op.type.startswith("Variable") or op.type.endswith("VariableOp")
                   for op in sess.graph.get_operations())


def _names(csv):
    """TF's parsing of a comma-separated flag: spaces dropped, None when empty."""
    return csv.replace(" ", "").split(",") if csv else None


def _restore_by_name(sess, input_checkpoint):
    """The checkpoint's tensors restored into the graph's tensors of the same names (TF's
    path without a saver, meta graph or SavedModel)."""
    reader = NewCheckpointReader(input_checkpoint)
    partitions = [t.name.split(":")[0] for op in sess.graph.get_operations()
                  for t in op.outputs if re.search(r"/part_\d+/", t.name)]
    var_list, has_partition = {}, False
    for key in reader.get_variable_to_shape_map():
        try:
            tensor = sess.graph.get_tensor_by_name(key + ":0")
        except KeyError:    # not in the graph (global_step, ...): skipped, as TF skips it
            continue
        has_partition = has_partition or any(key in name for name in partitions)
        var_list[key] = tensor
    try:
        saver = Saver(var_list=var_list)
    except TypeError:   # a tensor that is not a variable's: TF's diagnosis
        if has_partition:
            raise ValueError("Models containing partition variables cannot be converted "
                             "from checkpoint files. Please pass in a SavedModel using the "
                             "flag --input_saved_model_dir.") from None
        if _has_no_variables(sess):
            raise ValueError("No variables were found in this model. It is likely the "
                             "model was frozen previously. You cannot freeze a graph "
                             "twice.") from None
        raise
    saver.restore(sess, input_checkpoint)


def freeze_graph_with_def_protos(input_graph_def, input_saver_def, input_checkpoint,
                                 output_node_names, restore_op_name, filename_tensor_name,
                                 output_graph, clear_devices, initializer_nodes,
                                 variable_names_whitelist="", variable_names_blacklist="",
                                 input_meta_graph_def=None, input_saved_model_dir=None,
                                 saved_model_tags=None, checkpoint_version=_V2,
                                 variable_names_denylist=None):
    """The frozen GraphDef of protos already parsed (see the module doc); written to
    ``output_graph`` when one is given."""
    del restore_op_name, filename_tensor_name  # unused, as in TF
    blacklist = variable_names_denylist or variable_names_blacklist
    _check_freeze_args(checkpoint_version, input_saved_model_dir, input_checkpoint,
                       output_node_names)
    if clear_devices:
        nodes = (input_meta_graph_def.graph_def.node if input_meta_graph_def
                 else input_graph_def.node if input_graph_def else ())
        for node in nodes:
            node.device = ""
    with Graph().as_default():
        # TF imports the graph and then loads the SavedModel beside it (its importer renames
        # the second copy x_1...); scopeflow's import_graph_def refuses clashing names, so a
        # SavedModel is only loaded: the same variables, the same frozen graph.
        if input_graph_def and not input_saved_model_dir:
            import_graph_def(input_graph_def, name="")
        with Session() as sess:
            _restore_to_freeze(sess, input_checkpoint, input_saver_def, input_meta_graph_def,
                               input_saved_model_dir, saved_model_tags, initializer_nodes)
            graph_def = (input_meta_graph_def.graph_def if input_meta_graph_def
                         else input_graph_def)
            output_graph_def = convert_variables_to_constants(
                sess, graph_def, _names(output_node_names),
                variable_names_whitelist=_names(variable_names_whitelist),
                variable_names_blacklist=_names(blacklist))
    if output_graph:
        with gfile.GFile(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString(deterministic=True))
    return output_graph_def


def _check_freeze_args(checkpoint_version, input_saved_model_dir, input_checkpoint,
                       output_node_names):
    """TF's checks: a V2 checkpoint that exists (unless a SavedModel is given) and some
    output node names."""
    if checkpoint_version != _V2:
        raise NotImplementedError("freeze_graph: V1 checkpoints (checkpoint_version=1) are "
                                  "not supported by scopeflow; save a V2 checkpoint")
    if not input_saved_model_dir and not checkpoint_management.checkpoint_exists(
            input_checkpoint):
        raise ValueError("Input checkpoint '" + str(input_checkpoint) + "' doesn't exist!")
    if not output_node_names:
        raise ValueError("You need to supply the name of a node to --output_node_names.")


def _restore_to_freeze(sess, input_checkpoint, input_saver_def, input_meta_graph_def,
                       input_saved_model_dir, saved_model_tags, initializer_nodes):
    """Restores the variables into ``sess``: through the SaverDef, the MetaGraphDef's
    saver, the SavedModel, or by name; then runs ``initializer_nodes`` (not after a
    SaverDef or SavedModel, as in TF)."""
    if input_saver_def:
        Saver(saver_def=input_saver_def).restore(sess, input_checkpoint)
    elif input_meta_graph_def:
        import_meta_graph(input_meta_graph_def, clear_devices=True).restore(
            sess, input_checkpoint)
        if initializer_nodes:
            sess.run(_names(initializer_nodes))
    elif input_saved_model_dir:
        loader_impl.load(sess, saved_model_tags or [], input_saved_model_dir)
    else:
        _restore_by_name(sess, input_checkpoint)
        if initializer_nodes:
            sess.run(_names(initializer_nodes))


def _parse(path, input_binary, message, what):
    if not gfile.Exists(path):
        raise OSError(f"Input {what} file '{path}' does not exist!")
    proto = message()
    with gfile.GFile(path, "rb" if input_binary else "r") as f:
        if input_binary:
            proto.ParseFromString(f.read())
        else:
            text_format.Merge(f.read(), proto)
    return proto


def _meta_graph_of_saved_model(export_dir, tag_set):
    """The MetaGraphDef of ``export_dir`` whose tags are ``tag_set`` (comma-separated),
    as TF's saved_model_utils.get_meta_graph_def finds it."""
    wanted = {t for t in tag_set.split(",") if t}
    for meta in loader_impl.parse_saved_model(export_dir).meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    raise RuntimeError(f"MetaGraphDef associated with tag-set {tag_set} could not be found "
                       "in SavedModel")


def freeze_graph(input_graph, input_saver, input_binary, input_checkpoint,
                 output_node_names, restore_op_name, filename_tensor_name, output_graph,
                 clear_devices, initializer_nodes, variable_names_whitelist="",
                 variable_names_blacklist="", input_meta_graph=None,
                 input_saved_model_dir=None, saved_model_tags=SERVING,
                 checkpoint_version=_V2, variable_names_denylist=None):
    """Freezes the graph in the file ``input_graph`` (binary or text per ``input_binary``),
    or the SavedModel's, with ``input_checkpoint``'s values; TF's signature (TF 1's
    ``variable_names_blacklist``, TF 2's ``variable_names_denylist`` by keyword). Returns
    the frozen GraphDef, also written to ``output_graph``."""
    input_graph_def = None
    if input_saved_model_dir:
        input_graph_def = _meta_graph_of_saved_model(input_saved_model_dir,
                                                     saved_model_tags).graph_def
    elif input_graph:
        input_graph_def = _parse(input_graph, input_binary, protos.GraphDef, "graph")
    input_meta_graph_def = None
    if input_meta_graph:
        input_meta_graph_def = _parse(input_meta_graph, input_binary, protos.MetaGraphDef,
                                      "meta graph")
        print("Loaded meta graph file '" + input_meta_graph)
    input_saver_def = None
    if input_saver:
        input_saver_def = _parse(input_saver, input_binary, protos.SaverDef, "saver")
    return freeze_graph_with_def_protos(
        input_graph_def, input_saver_def, input_checkpoint, output_node_names,
        restore_op_name, filename_tensor_name, output_graph, clear_devices,
        initializer_nodes, variable_names_whitelist, variable_names_blacklist,
        input_meta_graph_def, input_saved_model_dir,
        [t for t in saved_model_tags.replace(" ", "").split(",") if t],
        checkpoint_version=checkpoint_version, variable_names_denylist=variable_names_denylist)


def main(unused_args, flags):
    """Runs ``freeze_graph`` with parsed ``flags`` (TF's ``main``)."""
    if flags.checkpoint_version not in (1, 2):
        raise ValueError("Invalid checkpoint version (must be '1' or '2'): "
                         f"{flags.checkpoint_version:d}")
    freeze_graph(flags.input_graph, flags.input_saver, flags.input_binary,
                 flags.input_checkpoint, flags.output_node_names, flags.restore_op_name,
                 flags.filename_tensor_name, flags.output_graph, flags.clear_devices,
                 flags.initializer_nodes, flags.variable_names_whitelist,
                 flags.variable_names_blacklist, flags.input_meta_graph,
                 flags.input_saved_model_dir, flags.saved_model_tags,
                 _V1 if flags.checkpoint_version == 1 else _V2,
                 variable_names_denylist=flags.variable_names_denylist)


def _parser():
    parser = argparse.ArgumentParser(prog="freeze_graph")
    parser.register("type", "bool", lambda v: v.lower() == "true")
    for flag, default, what in (
            ("input_graph", "", "TensorFlow 'GraphDef' file to load."),
            ("input_saver", "", "TensorFlow saver file to load."),
            ("input_checkpoint", "", "TensorFlow variables file to load."),
            ("output_graph", "", "Output 'GraphDef' file name."),
            ("output_node_names", "", "The name of the output nodes, comma separated."),
            ("restore_op_name", "save/restore_all", "Unused (as in TF)."),
            ("filename_tensor_name", "save/Const:0", "Unused (as in TF)."),
            ("initializer_nodes", "",
             "Comma separated list of initializer nodes to run before freezing."),
            ("variable_names_whitelist", "",
             "Comma separated list of variables to convert to constants (default all)."),
            ("variable_names_blacklist", "",
             "Comma separated list of variables to skip converting to constants."),
            ("variable_names_denylist", "", "TF 2's name for --variable_names_blacklist."),
            ("input_meta_graph", "", "TensorFlow 'MetaGraphDef' file to load."),
            ("input_saved_model_dir", "",
             "Path to the dir with TensorFlow 'SavedModel' file and variables."),
            ("saved_model_tags", "serve",
             "Group of tag(s) of the MetaGraphDef to load, separated by ','.")):
        parser.add_argument("--" + flag, type=str, default=default, help=what)
    parser.add_argument("--checkpoint_version", type=int, default=2,
                        help="Tensorflow variable file format")
    parser.add_argument("--input_binary", nargs="?", const=True, type="bool", default=False,
                        help="Whether the input files are in binary format.")
    parser.add_argument("--clear_devices", nargs="?", const=True, type="bool", default=True,
                        help="Whether to remove device specifications.")
    return parser


def run_main(argv=None):
    """The command line (``python -m scopeflow.tools.freeze_graph``), TF's flags."""
    flags, _ = _parser().parse_known_args(sys.argv[1:] if argv is None else argv)
    main(None, flags)


if __name__ == "__main__":
    run_main()
