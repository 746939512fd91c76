"""``tf.flags`` / ``tf.app.flags`` as absl's (issue 35): parsers, serializers, flag classes,
``FlagValues`` parsing, validators, required and exclusive flags, ``FlagHolder``, flagfiles,
helpers and ``flags.tf_decorator``.

One scenario (``SCENARIO``) runs under scopeflow and, with the ``tf1`` fixture, under real
TF's ``tf.compat.v1.flags`` (absl); every recorded value and error message must agree.
"""

import json
import re
import subprocess
import sys
import textwrap

import pytest

import scopeflow as tf
from scopeflow.platform import flags, tf_decorator

SCENARIO = r'''
import enum, json, os, sys, tempfile, warnings
warnings.simplefilter("ignore")
def run(flags):
    out = {}
    def rec(key, fn):
        try:
            r = fn()
            out[key] = ["ok", r if isinstance(r, (int, float, str, bool, type(None), list, dict)) else repr(r)]
        except Exception as e:
            out[key] = [type(e).__name__, str(e)]
    class Color(enum.Enum):
        RED = 1
        GREEN = 2
    fv = flags.FlagValues()
    h = flags.DEFINE_integer("steps", 10, "How many.", lower_bound=0, flag_values=fv)
    flags.DEFINE_float("lr", 0.1, "Rate.", upper_bound=1.0, flag_values=fv)
    flags.DEFINE_boolean("fast", False, "Go.", flag_values=fv)
    flags.DEFINE_string("name", None, "Name.", flag_values=fv)
    flags.DEFINE_list("items", "a,b", "L.", flag_values=fv)
    flags.DEFINE_spaceseplist("sp", "x y", "S.", comma_compat=True, flag_values=fv)
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "M.", flag_values=fv)
    flags.DEFINE_enum_class("color", "red", Color, "C.", flag_values=fv)
    flags.DEFINE_multi_string("ms", ["u"], "MS.", flag_values=fv)
    flags.DEFINE_multi_integer("mi", None, "MI.", flag_values=fv)
    flags.DEFINE_multi_enum("me", None, ["p", "q"], "ME.", flag_values=fv)
    flags.DEFINE_multi_enum_class("mc", None, Color, "MC.", flag_values=fv)
    flags.DEFINE_alias("st", "steps", flag_values=fv)
    rec("holder_default", lambda: [h.name, h.default, h.present])
    rec("parse1", lambda: fv(["p", "--steps", "5", "--nofast", "pos", "--items=c,\"d,e\"", "--sp=a,b c",
                               "--mode=eval", "--color=GREEN", "--ms=v", "--ms", "w", "--mi=1", "--mi=0x10",
                               "--me=p", "--mc=red", "--mc=green", "--", "--steps=7"]))
    rec("values", lambda: [fv.steps, fv.fast, fv.items, fv.sp, fv.mode, str(fv.color), fv.ms, fv.mi, fv.me,
                           [str(c) for c in fv.mc], h.value, h.present])
    rec("serialize", lambda: [fv[n].serialize() for n in ["steps", "lr", "fast", "name", "items", "sp", "mode",
                                                            "color", "ms", "mi", "me", "mc"]])
    rec("alias", lambda: (fv(["p", "--st=3"]), fv.steps)[1])
    rec("bad_int", lambda: fv(["p", "--steps=abc"]))
    rec("neg_int", lambda: fv(["p", "--steps=-1"]))
    rec("bad_float", lambda: fv(["p", "--lr=2"]))
    rec("bad_bool", lambda: fv(["p", "--fast=maybe"]))
    rec("bad_bool2", lambda: fv(["p", "--fast=yes"]))
    rec("nobool_arg", lambda: fv(["p", "--nofast=1"]))
    rec("bad_enum", lambda: fv(["p", "--mode=x"]))
    rec("bad_enumc", lambda: fv(["p", "--color=blue"]))
    rec("unknown", lambda: fv(["p", "--stesp=1"]))
    rec("unknown2", lambda: fv(["p", "--zzzzz=1"]))
    rec("unknown_known", lambda: fv(["p", "--zzzzz=1", "x", "--", "y"], known_only=True))
    rec("missing", lambda: fv(["p", "--name"]))
    rec("assign_bad", lambda: setattr(fv, "steps", -5))
    rec("after_assign", lambda: fv.steps)
    fv2 = flags.FlagValues()
    flags.DEFINE_string("req", None, "R.", flag_values=fv2)
    flags.DEFINE_integer("a", None, "A.", flag_values=fv2)
    flags.DEFINE_integer("b", None, "B.", flag_values=fv2)
    flags.DEFINE_boolean("x", False, "X.", flag_values=fv2)
    flags.DEFINE_boolean("y", False, "Y.", flag_values=fv2)
    flags.mark_flag_as_required("req", fv2)
    flags.mark_flags_as_mutual_exclusive(["a", "b"], flag_values=fv2)
    flags.mark_bool_flags_as_mutual_exclusive(["x", "y"], required=True, flag_values=fv2)
    @flags.validator("a", message="a must be even", flag_values=fv2)
    def _even(v):
        return v is None or v % 2 == 0
    @flags.multi_flags_validator(["a", "b"], message="sum", flag_values=fv2)
    def _sum(d):
        return True
    rec("req_missing", lambda: fv2(["p"]))
    rec("req_ok", lambda: fv2(["p", "--req=r", "--x"]))
    rec("mutex", lambda: fv2(["p", "--req=r", "--a=2", "--b=1", "--x"]))
    rec("odd", lambda: fv2(["p", "--req=r", "--a=3", "--x"]))
    rec("both_bool", lambda: fv2(["p", "--req=r", "--x", "--y"]))
    fv2.unparse_flags()
    rec("unparsed_ok", lambda: fv2.is_parsed())
    fv3 = flags.FlagValues()
    rec("dup", lambda: [flags.DEFINE_string("d", "1", "first", flag_values=fv3),
                        flags.DEFINE_string("d", "2", "second", flag_values=fv3)] and None)
    rec("method_conflict", lambda: flags.DEFINE_string("is_parsed", "1", "h", flag_values=fv3) and None)
    rec("alias_missing", lambda: flags.DEFINE_alias("q", "nope", flag_values=fv3) and None)
    rec("bool_default", lambda: flags.DEFINE_boolean("bd", "maybe", "h", flag_values=fv3) and None)
    rec("int_default", lambda: flags.DEFINE_integer("idf", 1.5, "h", flag_values=fv3) and None)
    hh = flags.DEFINE_integer("ov", 1, "h", lower_bound=0, flag_values=fv3)
    fv3(["p"])
    rec("override", lambda: (flags.override_value(hh, 4), hh.value)[1])
    rec("override_bad", lambda: flags.override_value(hh, -4))
    rec("after_override_bad", lambda: hh.value)
    rec("set_default", lambda: (flags.set_default(hh, 9), hh.value, hh.default)[1:])
    rec("holder_bool", lambda: bool(hh))
    rec("holder_eq", lambda: hh == 1)
    path = os.path.join(tempfile.mkdtemp(), "f.txt")
    with open(path, "w") as f:
        f.write("# c\n--ov=7\n\n// x\n--nope_not_a_flag_line_ignored\n")
    rec("flagfile", lambda: fv3(["p", "--flagfile=" + path]))
    fv3.unparse_flags()
    with open(path, "w") as f:
        f.write("--ov=7\n")
    rec("flagfile2", lambda: (fv3(["p", "--flagfile", path, "a"]), fv3.ov))
    rec("flagfile_missing", lambda: fv3(["p", "--flagfile=/nonexistent/zz"]))
    rec("f2a", lambda: list(flags.flag_dict_to_args({"a": None, "b": True, "c": False, "d": "s", "e": [1, 2],
                                                     "f": 3, "g": [4, 5]}, multi_flags={"g"})))
    rec("text_wrap", lambda: flags.text_wrap("hello world this is a long line\n\n  second para here", 12, "  ", "> "))
    rec("doc_to_help", lambda: flags.doc_to_help("  First line\n    continues here.\n\n    Para two.\n  "))
    rec("help_width", lambda: flags.get_help_width())
    rec("parsers", lambda: [flags.IntegerParser(1, None).syntactic_help, flags.IntegerParser(None, -1).syntactic_help,
                            flags.IntegerParser(0, 5).syntactic_help, flags.FloatParser(None, 3).syntactic_help,
                            flags.FloatParser(2, None).syntactic_help, flags.IntegerParser(None, 0).syntactic_help,
                            flags.ListParser().syntactic_help, flags.WhitespaceSeparatedListParser().syntactic_help,
                            flags.WhitespaceSeparatedListParser(True).syntactic_help,
                            flags.ListParser().flag_type(), flags.WhitespaceSeparatedListParser().flag_type(),
                            flags.EnumParser(["a"]).flag_type(), flags.EnumClassParser(Color).flag_type(),
                            flags.IntegerParser().flag_type(), flags.FloatParser().flag_type(),
                            flags.BooleanParser().flag_type(), flags.ArgumentParser().flag_type()])
    rec("parse_vals", lambda: [flags.IntegerParser().parse("0o17"), flags.IntegerParser().parse("017"),
                               flags.FloatParser().parse("1e3"), flags.BooleanParser().parse(1),
                               flags.EnumParser(["Ab", "c"], case_sensitive=False).parse("ab"),
                               str(flags.EnumClassParser(Color, case_sensitive=False).parse("red")),
                               flags.ListParser().parse('a, "b,c" ,d'),
                               flags.WhitespaceSeparatedListParser().parse(" a  b\tc ")])
    rec("parse_errs", lambda: [repr(_e(lambda: p())) for p in [
        lambda: flags.IntegerParser().parse(1.5), lambda: flags.FloatParser().parse(True),
        lambda: flags.BooleanParser().parse(2), lambda: flags.BooleanParser().parse(None),
        lambda: flags.EnumParser([]), lambda: flags.EnumParser("ab"),
        lambda: flags.EnumClassParser(int), lambda: flags.EnumClassParser(Color).parse(3),
        lambda: flags.ArgumentParser().parse(3), lambda: flags.ListParser().parse('a,"b')]])
    rec("serializers", lambda: [flags.CsvListSerializer(",").serialize(["a", "b,c", 1]),
                                flags.ListSerializer(":").serialize([1, 2]),
                                flags.EnumClassSerializer(True).serialize(Color.RED),
                                flags.EnumClassListSerializer(",", lowercase=False).serialize([Color.RED, Color.GREEN]),
                                flags.ArgumentSerializer().serialize(3.5)])
    rec("flag_objs", lambda: [flags.BooleanFlag("bb", True, "h").default_as_str,
                              flags.EnumFlag("ee", "a", "h", ["a", "b"]).help,
                              flags.EnumClassFlag("ec", Color.RED, "h", Color).help,
                              flags.EnumClassFlag("ec", Color.RED, "h", Color).default_as_str,
                              flags.MultiFlag(flags.ArgumentParser(), flags.ArgumentSerializer(), "mf", ["a"], "h").help,
                              flags.MultiEnumClassFlag("mec", ["red"], "h", Color).help,
                              flags.Flag(flags.ArgumentParser(), None, "fl", "x", "").help,
                              flags.Flag(flags.ArgumentParser(), None, "fl", "x", "").default_as_str,
                              flags.MultiFlag(flags.IntegerParser(), flags.ArgumentSerializer(), "mf", [1, 2], "h").serialize(),
                              flags.MultiEnumClassFlag("mec", ["red", "GREEN"], "h", Color).serialize(),
                              flags.MultiFlag(flags.IntegerParser(), flags.ArgumentSerializer(), "mf", [1], "h").flag_type(),
                              flags.DEFINE_spaceseplist("spx", "a b", "h", flag_values=fv3).serialize()])
    fv4 = flags.FlagValues()
    def _old():
        flags.DEFINE_string(flag_name="old", default_value="v", docstring="d", flag_values=fv4)
        return fv4["old"].default
    rec("old_kwargs", _old)
    rec("required_def", lambda: flags.DEFINE_string("rq", "x", "h", flag_values=fv4, required=True) and None)
    h5 = flags.DEFINE_string("rq2", None, "h", flag_values=fv4, required=True)
    rec("required_def2", lambda: fv4(["p"]))
    fv4(["p", "--rq2=z"])
    rec("required_val", lambda: h5.value)
    rec("declare_undef", lambda: flags.declare_key_flag("nonexistent_zz", flag_values=fv4))
    rec("adopt_bad", lambda: flags.adopt_module_key_flags("notamodule", flag_values=fv4))
    rec("gnu", lambda: fv4(["p", "a", "--rq2=y", "-", "b", "-rq2", "w"]))
    rec("gnu_val", lambda: fv4.rq2)
    rec("dashdash_known", lambda: fv4(["p", "--", "a"], known_only=True))
    rec("str_argv", lambda: fv4("abc"))
    rec("empty", lambda: fv4([]))
    rec("mutex_warn", lambda: _warns(lambda: flags.mark_flags_as_mutual_exclusive(["rq2", "old"], flag_values=fv4)))
    rec("bool_mutex_nonbool", lambda: flags.mark_bool_flags_as_mutual_exclusive(["rq2", "old"], flag_values=fv4))
    rec("flags_into_string", lambda: fv.flags_into_string())
    td = flags.tf_decorator
    def f(x, y=2, *a, z=3, **k):
        "doc f"
        return x + y
    def w(*a, **k):
        return f(*a, **k) * 10
    g = td.make_decorator(f, w, "dec", "dd")
    rec("td", lambda: [g.__name__, g.__doc__, str(td.inspect.signature(g)), g(1), g._tf_decorator.decorator_name,
                       g._tf_decorator.decorator_doc, len(td.unwrap(g)[0]), td.unwrap(g)[1] is f,
                       td.unwrap(f)[0] == [], td.Any is __import__("typing").Any,
                       td.Dict is __import__("typing").Dict, td.inspect is __import__("inspect")])
    def f2(x):
        return -x
    def w2(*a, **k):
        return w2.__wrapped__(*a, **k) * 10
    g2 = td.make_decorator(f, w2)
    rec("rewrap", lambda: [td.rewrap(g2, f, f2)(3), td.rewrap(f, f, f2) is f2, g2._tf_decorator.decorator_name])
    import inspect as _i
    rec("fas", lambda: str(td.fullargspec_to_signature(_i.getfullargspec(f))))
    d = td.TFDecorator("nm", f)
    rec("tfdec", lambda: [d(1, 2), d.__name__, d.__doc__, str(td.inspect.signature(d)), d.decorator_argspec])
    rec("tfdec_spec", lambda: str(td.TFDecorator("nm", f, "", _i.getfullargspec(f2)).__signature__))
    rec("flag_type", lambda: [fv[n].flag_type() for n in ["steps", "lr", "fast", "name", "items", "sp", "mode",
                                                          "color", "ms", "mi", "me", "mc"]])
    rec("default_as_str", lambda: [fv[n].default_as_str for n in ["steps", "lr", "fast", "name", "items", "sp", "mode",
                                                          "color", "ms", "mi", "me", "mc"]])
    rec("helps", lambda: [fv[n].help for n in ["steps", "me", "mc", "color", "mode", "ms", "st"]])
    fv7 = flags.FlagValues()
    flags.DEFINE_integer("a", 1, "A.", flag_values=fv7)
    for i, (argv, ko) in enumerate([(["p", "--undefok=zz,yy", "--zz=3", "--noyy", "--a=2", "x"], False),
                                    (["p", "--undefok", "zz", "--zz", "3"], False),
                                    (["p", "--undefok=zz", "--zz=3", "--qq"], True),
                                    (["p", "--undefok=zz", "--ww"], False),
                                    (["p", "--flagfile"], False)]):
        rec(f"undefok{i}", lambda: fv7(argv, known_only=ko))
        fv7.unparse_flags()
    def _more():
        out = []
        fv = flags.FlagValues()
        flags.DEFINE_integer("a", 1, "A.", flag_values=fv)
        flags.DEFINE_flag(flags.BooleanFlag("b", False, "B."), fv, module_name="mm")
        fv.set_gnu_getopt(False)
        out.append([fv.is_gnu_getopt(), fv(["p", "x", "--a=3"]), fv.a])
        fv.unparse_flags(); fv.set_gnu_getopt(True)
        out.append(fv(["p", "x", "--a=3"]))
        out.append([fv.find_module_defining_flag("b"), fv.find_module_defining_flag("zz", "dflt")])
        o = flags.FlagValues()
        flags.DEFINE_string("c", "q", "C.", flag_values=o)
        fv.append_flag_values(o)
        out.append(sorted(fv))
        fv.remove_flag_values(o)
        out.append(sorted(fv))
        path = os.path.join(tempfile.mkdtemp(), "f")
        with open(path, "w") as f:
            f.write("--a=5\npositional\n  --b  \n")
        fv.unparse_flags()
        out.append([fv(["p", "--flagfile=" + path]), fv.a, fv.b])
        return out
    rec("gnu_append_flagfile", _more)
    fv8 = flags.FlagValues()
    rec("old_kwargs_list", lambda: type(_e(lambda: flags.DEFINE_list(flag_name="l", default_value="a",
                                                                      docstring="d", flag_values=fv8))).__name__)
    rec("old_kwargs_float", lambda: (flags.DEFINE_float(flag_name="fl", default_value=1, docstring="d",
                                                        flag_values=fv8), fv8["fl"].default)[1])
    fv6 = flags.FlagValues()
    flags.DEFINE_flag(flags.BooleanFlag("fast", False, "Go.", short_name="f"), fv6, module_name="mymod")
    flags.DEFINE_flag(flags.Flag(flags.IntegerParser(0, None), flags.ArgumentSerializer(), "steps", 10,
                                 "How many steps to run in the whole training loop of this long-help "
                                 "program, really."), fv6, module_name="mymod")
    flags.DEFINE_flag(flags.EnumFlag("mode", "a", "Mode.", ["a", "b"]), fv6, module_name="other")
    flags.DEFINE_flag(flags.MultiFlag(flags.IntegerParser(), flags.ArgumentSerializer(), "mi", [1, 2], "MI."),
                      fv6, module_name="other")
    rec("help", lambda: [fv6.get_help(), fv6.get_help(include_special_flags=False),
                         fv6.module_help("mymod"), fv6.module_help("nothing"), str(fv6),
                         flags.FlagValues().get_help()])
    return out

def _e(fn):
    try:
        fn()
    except Exception as e:
        return (type(e).__name__, str(e))
def _warns(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [str(x.message) for x in w]
'''


def _run_scenario(flags_module):
    namespace = {"__name__": "scen"}
    exec(SCENARIO, namespace)  # noqa: S102 (the same source runs under TF)
    return json.loads(json.dumps(namespace["run"](flags_module)))


def test_scenario_matches_tf(tf1):
    ours = _run_scenario(tf.flags)
    theirs = tf1(f"""
import warnings
SCENARIO = {SCENARIO!r}
ns = {{"__name__": "scen"}}
exec(SCENARIO, ns)
print(json.dumps(ns["run"](tf.flags)))
""")
    assert set(ours) == set(theirs)
    for result in (ours, theirs):  # the defining module: the test's, or TF's program name
        result["dup"][1] = re.sub(r"First from .*, second from .*\. ", "", result["dup"][1])
    mismatched = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not mismatched


def test_scenario_values_without_tf():
    r = _run_scenario(flags)
    assert r["parse1"] == ["ok", ["p", "pos", "--steps=7"]]
    assert r["values"][1][:4] == [5, False, ["c", "d,e"], ["a", "b", "c"]]
    assert r["bad_int"] == ["IllegalFlagValueError",
                            "flag --steps=abc: invalid literal for int() with base 10: 'abc'"]
    assert r["neg_int"] == ["IllegalFlagValueError", "flag --steps=-1: -1 is not a non-negative integer"]
    assert r["req_missing"] == ["IllegalFlagValueError",
                                "flag --req=None: Flag --req must have a value other than None.\n"
                                "flags x=False, y=False: Exactly one of (x, y) must be True."]
    assert r["unknown"] == ["UnrecognizedFlagError",
                            "Unknown command line flag 'stesp'. Did you mean: steps ?"]
    assert r["assign_bad"][0] == "IllegalFlagValueError" and r["after_assign"] == ["ok", 3]
    assert r["f2a"][1] == ["--a", "--b", "--noc", "--d=s", "--e=1,2", "--f=3", "--g=4", "--g=5"]
    assert r["td"][1][:4] == ["f", "dd", "(x, y=2, *a, z=3, **k)", 30]


def test_every_tf1_flags_name_exists():
    names = ["ArgumentParser", "ArgumentSerializer", "BaseListParser", "BooleanFlag",
             "BooleanParser", "CantOpenFlagFileError", "CsvListSerializer", "DEFINE",
             "DEFINE_alias", "DEFINE_enum_class", "DEFINE_flag", "DEFINE_multi",
             "DEFINE_multi_enum", "DEFINE_multi_enum_class", "DEFINE_spaceseplist",
             "EnumClassFlag", "EnumClassListSerializer", "EnumClassParser",
             "EnumClassSerializer", "EnumFlag", "EnumParser", "FlagHolder",
             "FlagNameConflictsWithMethodError", "FloatParser", "IntegerParser", "ListParser",
             "ListSerializer", "MultiEnumClassFlag", "MultiFlag", "ValidationError",
             "WhitespaceSeparatedListParser", "adopt_module_key_flags", "declare_key_flag",
             "disclaim_key_flags", "doc_to_help", "flag_dict_to_args", "get_help_width",
             "mark_bool_flags_as_mutual_exclusive", "mark_flag_as_required",
             "mark_flags_as_mutual_exclusive", "mark_flags_as_required",
             "multi_flags_validator", "override_value", "register_multi_flags_validator",
             "register_validator", "set_default", "text_wrap", "validator"]
    for name in names:
        assert getattr(tf.app.flags, name) is getattr(tf.flags, name)
    for name in ["Any", "Dict", "TFDecorator", "fullargspec_to_signature", "inspect",
                 "make_decorator", "rewrap", "unwrap"]:
        assert getattr(tf.flags.tf_decorator, name) is getattr(tf_decorator, name)


def test_holder_value_and_validator_on_assignment():
    fv = flags.FlagValues()
    h = flags.DEFINE_integer("n", 4, "n", flag_values=fv)
    flags.register_validator("n", lambda v: v < 10, message="too big", flag_values=fv)
    fv(["prog", "--n", "6"])
    assert h.value == 6 and h.present
    with pytest.raises(flags.IllegalFlagValueError, match="flag --n=12: too big"):
        fv.n = 12
    assert h.value == 6


def test_app_run_reports_missing_required_flag(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import scopeflow as tf
        flags = tf.app.flags
        FLAGS = flags.FLAGS
        flags.DEFINE_string("out", None, "Where.")
        flags.mark_flag_as_required("out")
        def main(argv):
            print("out", FLAGS.out, argv[1:])
        tf.app.run(main)
    """))
    ok = subprocess.run([sys.executable, str(script), "--out=x", "rest"], capture_output=True,
                        text=True, timeout=300)
    assert ok.returncode == 0 and "out x ['rest']" in ok.stdout
    bad = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 1
    assert "flag --out=None: Flag --out must have a value other than None." in bad.stderr
