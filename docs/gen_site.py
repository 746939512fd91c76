"""The documentation site's generated pages, as an MkDocs hook (``mkdocs.yml``: ``hooks``).

    pip install -e '.[docs]' && mkdocs serve      # or: mkdocs build --strict

MkDocs reads ``docs/``; this hook adds, at build time and without writing them to disk:

- ``index.md`` and ``tour.md``: the README, the tour ("A tour, following the seeds") on a
  page of its own;
- ``api/tf.<namespace>.md``: one page per namespace of TF1's API that ``docs/API.md``
  lists name by name (from ``tests/fixtures/tf1_api/tf1_api.json``), each listing every
  name with its signature, its status in scopeflow and a link to TensorFlow's own page,
  then the docstrings of the names scopeflow has (rendered by mkdocstrings where its
  loader finds the object, else from the live object).

Statuses (:data:`STATUSES`) are ``docs/API.md``'s (:func:`api_fallback.coverage`), with
*supported* split in two: **differs** when TensorFlow's signature
(``tests/fixtures/tf1_api/tf1_signatures.tsv``) has a parameter scopeflow's lacks, or
TF's positional parameters are not scopeflow's first ones in the same order.

Every page's lists are made Python-Markdown's (:func:`gfm_lists`: the pages are written
for GitHub), and its links the site's (:func:`rewrite_links`: the README's ``docs/X.md`` is
``X.md`` here; a link to a file the site does not have, ``../scopeflow/...``, becomes the
file's path). ``DoctestFences`` is a griffe extension (``mkdocs.yml``) that
gives mkdocstrings the docstrings as :func:`docstring_markdown` makes them.

``python docs/gen_site.py DIR`` writes the generated pages into ``DIR`` (to read them
without MkDocs).
"""

from __future__ import annotations

import ast
import html
import inspect
import json
import os
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FIXTURES = ROOT / "tests" / "fixtures" / "tf1_api"
SIGNATURES = FIXTURES / "tf1_signatures.tsv"
TF_DOCS = "https://www.tensorflow.org/api_docs/python/tf/compat/v1"
TOUR_HEADING = "## A tour, following the seeds"
NAV_SECTION = "TF1 API"  # mkdocs.yml's nav section the namespace pages are added to
STATUSES = ("supported", "differs", "not yet", "not planned")
STATUS_TEXT = {
    "supported": "scopeflow has the name at the same path, and TensorFlow's parameters in "
                 "TensorFlow's order (or TF's signature is not known); this says nothing "
                 "about every argument value and case: see its docstring",
    "differs": "scopeflow has the name, but not TensorFlow's parameters: it lacks some, or "
               "takes TF's positional parameters in another order (the status says which)",
    "not yet": "TensorFlow 1 has it and scopeflow does not yet; using it raises "
               "`NotImplementedError` (also an `AttributeError`)",
    "not planned": "deliberately left out; the error says why, as does the summary here",
}


# ── TensorFlow's signatures, and scopeflow's ─────────────────────────────────────────────
def load_tf_signatures() -> dict[str, str]:
    """TF's signature per path in ``tf.compat.v1`` (``"nn.conv2d"``), from the fixture."""
    out = {}
    for line in SIGNATURES.read_text().splitlines():
        if line and not line.startswith("#"):
            path, signature = line.split("\t")
            out[path] = signature
    return out


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "positional", "keyword" (keyword-only), "*args" or "**kwargs"


def tf_params(signature: str) -> list[Param]:
    """The parameters of a signature of the fixture (a valid Python parameter list)."""
    args = ast.parse(f"def f{signature}: pass").body[0].args
    out = [Param(a.arg, "positional") for a in args.posonlyargs + args.args]
    if args.vararg:
        out.append(Param(args.vararg.arg, "*args"))
    out += [Param(a.arg, "keyword") for a in args.kwonlyargs]
    if args.kwarg:
        out.append(Param(args.kwarg.arg, "**kwargs"))
    return out


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
    inspect.Parameter.VAR_POSITIONAL: "*args",
    inspect.Parameter.KEYWORD_ONLY: "keyword",
    inspect.Parameter.VAR_KEYWORD: "**kwargs",
}


def scopeflow_signature(obj) -> tuple[str, list[Param]] | None:
    """``obj``'s signature without annotations (as TF's pages print them) and its
    parameters, or ``None`` when Python cannot tell."""
    if not callable(obj):
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    empty = inspect.Parameter.empty
    sig = sig.replace(parameters=[p.replace(annotation=empty) for p in sig.parameters.values()],
                      return_annotation=empty)
    return str(sig), [Param(p.name, _KINDS[p.kind]) for p in sig.parameters.values()]


def differences(tf: list[Param], ours: list[Param]) -> list[str]:
    """How scopeflow's parameters ``ours`` differ from TF's ``tf`` for a TF1 call: TF's
    parameters that scopeflow lacks, and TF's positional parameters where scopeflow's
    first positional ones (but private ones, as TF 1.x's ``_sentinel``) are others.
    ``[]`` when a call TF accepts binds the same."""
    kinds = {p.kind for p in ours}
    have = {p.name for p in ours}
    out = []
    if "**kwargs" not in kinds:
        missing = [p.name for p in tf if p.kind in ("positional", "keyword")
                   and p.name not in have]
        if missing:
            out.append("no " + ", ".join(f"`{n}`" for n in missing))
    if "*args" not in kinds:
        # TF 1.x's "_sentinel" (first, to force keywords) is not a parameter to pass.
        theirs = [p.name for p in tf if p.kind == "positional"]
        mine = [p.name for p in ours if p.kind == "positional"
                and not p.name.startswith("_")][:len(theirs)]
        if mine != theirs and set(theirs) <= have:
            out.append(f"positional `({', '.join(mine)})`, TF's `({', '.join(theirs)})`")
    return out


# ── one row per TF1 name ─────────────────────────────────────────────────────────────────
@dataclass
class Entry:
    """A name of TF1's API as the site shows it."""

    namespace: str          # "" is the root (tf.compat.v1)
    name: str
    kind: str               # function, class, module, constant (the fixture's)
    status: str             # one of STATUSES
    api_status: str         # docs/API.md's: supported, not yet or not planned
    signature: str = ""     # "(x, name=None)", "" where unknown or not callable
    signature_from: str = ""  # "scopeflow" or "TensorFlow"
    differences: list[str] = field(default_factory=list)
    summary: str = ""
    obj: object = None      # scopeflow's object, when supported

    @property
    def tf_name(self) -> str:
        return tf_name(self.namespace, self.name)

    @property
    def tf_url(self) -> str:
        """TensorFlow's page for the name; for a constant, its namespace's page (TF lists
        constants there)."""
        parts = self.namespace.split(".") if self.namespace else []
        if self.kind != "constant":
            parts.append(self.name)
        return "/".join([TF_DOCS, *parts])


def tf_name(namespace: str, name: str = "") -> str:
    return ".".join(p for p in ("tf", namespace, name) if p)


def page_uri(namespace: str) -> str:
    """The site's page for a namespace: ``api/tf.nn.md``."""
    return f"api/{tf_name(namespace)}.md"


def _one_line(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    return text


def first_paragraph(obj) -> str:
    """The first paragraph of ``obj``'s own docstring, on one line ("" if none)."""
    doc = obj.__doc__ if inspect.ismodule(obj) else inspect.getdoc(obj)
    if not doc:
        return ""
    para = inspect.cleandoc(doc).split("\n\n", 1)[0]
    if para.lstrip().startswith(">>>"):
        return ""
    return _one_line(para)


def entries() -> dict[str, list[Entry]]:
    """Every name of every namespace of ``docs/API.md`` (:func:`api_fallback.coverage`),
    with its signature, status and summary, in API.md's order."""
    import scopeflow  # noqa: F401 - the namespaces, as a user's import leaves them
    from scopeflow.framework import api_fallback

    tf_sigs = load_tf_signatures()
    out: dict[str, list[Entry]] = {}
    for path, cov in api_fallback.coverage().items():
        have = vars(cov["object"]) if cov["object"] is not None else {}
        rows = []
        for name, kind, api_status, reason in cov["names"]:
            qualpath = f"{path}.{name}" if path else name
            entry = Entry(path, name, kind, api_status, api_status)
            tf_sig = tf_sigs.get(qualpath)
            if api_status == "supported":
                entry.obj = have[name]
                ours = None if kind in ("module", "constant") else scopeflow_signature(
                    entry.obj)
                if ours is not None:
                    entry.signature, entry.signature_from = ours[0], "scopeflow"
                    if tf_sig is not None:
                        entry.differences = differences(tf_params(tf_sig), ours[1])
                        if entry.differences:
                            entry.status = "differs"
                elif tf_sig is not None and kind not in ("module", "constant"):
                    entry.signature, entry.signature_from = tf_sig, "TensorFlow"
                entry.summary = _summary(entry)
            else:
                if tf_sig is not None and kind not in ("module", "constant"):
                    entry.signature, entry.signature_from = tf_sig, "TensorFlow"
                entry.summary = _one_line(reason) if reason else ""
            rows.append(entry)
        out[path] = rows
    return out


def _summary(entry: Entry) -> str:
    obj = entry.obj
    if entry.kind == "constant" or not (inspect.ismodule(obj) or inspect.isclass(obj)
                                        or callable(obj)):
        text = repr(obj)
        return f"`{text}`" if len(text) <= 60 and "`" not in text else type(obj).__name__
    return first_paragraph(obj)


# ── docstrings as Markdown ───────────────────────────────────────────────────────────────
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def _outside_fences(text: str, fix) -> str:
    """``fix`` applied to each run of Markdown ``text``'s lines outside fenced code."""
    out, chunk, fenced = [], [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            if chunk:
                out.append(fix("\n".join(chunk)))
                chunk = []
            out.append(line)
            fenced = not fenced
        elif fenced:
            out.append(line)
        else:
            chunk.append(line)
    if chunk:
        out.append(fix("\n".join(chunk)))
    return "\n".join(out)


def _outside_code(text: str, fix) -> str:
    """``fix`` applied to the parts of Markdown ``text`` outside fences and code spans."""

    def spans(chunk: str) -> str:
        pieces, last = [], 0
        for m in _CODE_SPAN.finditer(chunk):
            pieces += [fix(chunk[last:m.start()]), m.group(0)]
            last = m.end()
        return "".join([*pieces, fix(chunk[last:])])

    return _outside_fences(text, spans)


def _escape_prose(text: str) -> str:
    # "[a] [b]" or "[a][b]" is a reference link to Markdown (and a cross-reference to
    # mkdocstrings' autorefs); "<name>" is an HTML tag. In docstrings both are text.
    text = re.sub(r"\](\s?)\[", r"]\1\\[", text)
    return re.sub(r"<(?!https?://)", "&lt;", text)


def docstring_markdown(doc: str) -> str:
    """A docstring as Markdown: doctest blocks (``>>>`` up to a blank line) fenced as
    Python, brackets and angle brackets in the prose kept as text, and lists as GitHub
    shows them (:func:`gfm_lists`)."""
    lines, out, i = doc.split("\n"), [], 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            indent = min(len(b) - len(b.lstrip()) for b in block)
            out += ["", "```python", *(b[indent:] for b in block), "```", ""]
            continue
        out.append(line)
        i += 1
    return gfm_lists(_outside_code("\n".join(out), _escape_prose))


try:  # the griffe extension, where mkdocstrings (and so griffe) is installed
    import griffe
except ImportError:  # pragma: no cover - the docs extra is not installed
    griffe = None

if griffe is not None:
    class DoctestFences(griffe.Extension):
        """Gives mkdocstrings each docstring as :func:`docstring_markdown` makes it."""

        def on_instance(self, *, obj, **kwargs) -> None:
            if obj.docstring is not None:
                obj.docstring.value = docstring_markdown(obj.docstring.value)


# ── the namespace pages ──────────────────────────────────────────────────────────────────
def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """Inline code that may hold backticks or pipes (a table cell's)."""
    return f"<code>{html.escape(text, quote=False).replace('|', '&#124;')}</code>"


def identifier(obj) -> str | None:
    """``module.qualname`` of a scopeflow class or function defined at a module's top
    level (where mkdocstrings and the docstring's anchor name it), else ``None``."""
    if not (inspect.isclass(obj) or inspect.isroutine(obj)):
        return None
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
    if not module or not module.startswith("scopeflow") or not qualname or "<" in qualname:
        return None
    found = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return f"{module}.{qualname}" if found is obj else None


def _griffe_finds(ident: str, cache: dict) -> bool:
    """Whether mkdocstrings' loader (griffe, from the repository's sources) finds
    ``ident``: not in a folder without ``__init__.py`` (scopeflow/framework, /runtime),
    nor created at run time."""
    if griffe is None:
        return False
    if "scopeflow" not in cache:
        try:
            loader = griffe.GriffeLoader(search_paths=[str(ROOT)])
            cache["scopeflow"] = loader.load("scopeflow")
        except Exception:  # noqa: BLE001 - any failure means: render them ourselves
            cache["scopeflow"] = None
    package = cache["scopeflow"]
    if package is None:
        return False
    try:
        found = package[ident[len("scopeflow."):]]
    except Exception:  # noqa: BLE001
        return False
    return not found.is_alias


def docstring_homes(by_path: dict[str, list[Entry]]) -> dict[str, str]:
    """The namespace whose page shows each docstring (:func:`identifier`): the first one
    with the object (one anchor per object in the site), the root before the others."""
    homes: dict[str, str] = {}
    for path, rows in by_path.items():
        for r in rows:
            ident = identifier(r.obj) if r.api_status == "supported" else None
            if ident is not None:
                homes.setdefault(ident, path)
    return homes


def namespace_page(path: str, rows: list[Entry], by_path: dict[str, list[Entry]],
                   homes: dict[str, str] | None = None,
                   griffe_cache: dict | None = None) -> str:
    """The Markdown of namespace ``path``'s page."""
    homes = docstring_homes(by_path) if homes is None else homes
    griffe_cache = {} if griffe_cache is None else griffe_cache
    here = posixpath.dirname(page_uri(path))
    name = tf_name(path)
    counts = {s: sum(1 for r in rows if r.status == s) for s in STATUSES}
    url = "/".join([TF_DOCS, *(path.split(".") if path else [])])
    out = [
        f"# `{name}`",
        "",
        "<!-- Generated at build time by docs/gen_site.py; edit that, not this. -->",
        "",
        f"TensorFlow's page: [`{tf_name('compat.v1', path)}`]({url}). "
        f"{len(rows)} names: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES) + ".",
        "",
    ]
    if path == "":
        out += ["`tf.compat.v1` is this namespace: `scopeflow.compat.v1` *is* `scopeflow`.",
                ""]
    out += [f"- **{s}**: {STATUS_TEXT[s]}." for s in STATUSES]
    out += [
        "",
        "The signature is scopeflow's where it has the name, else TensorFlow's "
        "(*TF:* before it); the link after each name is TensorFlow's page.",
        "",
        "| name | status | summary |",
        "|---|---|---|",
    ]
    idents: dict[str, list[Entry]] = {}
    for r in rows:
        ident = identifier(r.obj) if r.api_status == "supported" else None
        if ident is not None and homes[ident] == path:
            idents.setdefault(ident, []).append(r)
        text = r.name + (r.signature if r.signature else "")
        if r.signature_from == "TensorFlow":
            text = "TF: " + text
        cell = _code(text)
        if ident is not None:
            home = "" if homes[ident] == path else posixpath.relpath(
                page_uri(homes[ident]), here)
            cell = f"[{cell}]({home}#{ident})"
        elif r.kind == "module" and r.status == "supported" and \
                f"{path}.{r.name}".lstrip(".") in by_path:
            target = posixpath.relpath(page_uri(f"{path}.{r.name}".lstrip(".")), here)
            cell = f"[{cell}]({target})"
        cell += f' <a href="{r.tf_url}" title="TensorFlow\'s {r.tf_name}">↗</a>'
        status = r.status + (": " + "; ".join(r.differences) if r.differences else "")
        summary = _outside_code(r.summary, _escape_prose)
        out.append(f"| {cell} | {_cell(status)} | {_cell(summary)} |")
    if idents:
        out += ["", "## Docstrings", "",
                "scopeflow's docstring of each name it has (two names of one object share "
                "one; a name that is also in another namespace, the root first, links "
                "there).", ""]
    for ident, same in idents.items():
        heading = ", ".join(r.tf_name for r in same)
        if _griffe_finds(ident, griffe_cache):
            out += [f"::: {ident}", "    options:", f"      heading: {json.dumps(heading)}",
                    ""]
        else:
            out += _own_docstring(ident, heading, same[0].obj)
    return "\n".join(out) + "\n"


def _own_docstring(ident: str, heading: str, obj) -> list[str]:
    """A docstring rendered from the live object, shaped as mkdocstrings' (for the objects
    its loader does not find)."""
    out = [f'<h3 id="{ident}"><code>{html.escape(heading)}</code></h3>', ""]
    sig = scopeflow_signature(obj)
    if sig is not None:
        out += ["```python", obj.__name__ + sig[0], "```", ""]
    doc = inspect.getdoc(obj)
    if doc:
        out += [docstring_markdown(doc), ""]
    if inspect.isclass(obj):
        for name, member in vars(obj).items():
            if name.startswith("_") or not inspect.isfunction(member) or not member.__doc__:
                continue
            out += [f'<h4 id="{ident}.{name}"><code>{html.escape(name)}</code></h4>', ""]
            msig = scopeflow_signature(member)
            if msig is not None:
                out += ["```python", name + msig[0], "```", ""]
            out += [docstring_markdown(inspect.getdoc(member)), ""]
    return out


def api_pages(by_path: dict[str, list[Entry]] | None = None) -> dict[str, str]:
    """Every namespace page, by its path in the site (:func:`page_uri`)."""
    by_path = entries() if by_path is None else by_path
    cache: dict = {}
    homes = docstring_homes(by_path)
    return {page_uri(p): namespace_page(p, rows, by_path, homes, cache)
            for p, rows in by_path.items()}


# ── the README's pages ───────────────────────────────────────────────────────────────────
def readme_pages(text: str | None = None) -> dict[str, str]:
    """``index.md`` (the README without its tour) and ``tour.md`` (the tour)."""
    text = README.read_text() if text is None else text
    lines = text.split("\n")
    start = lines.index(TOUR_HEADING)
    end, fenced = len(lines), False
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("```"):
            fenced = not fenced
        elif not fenced and lines[i].startswith("## "):
            end = i
            break
    tour = ["# " + TOUR_HEADING[3:], *lines[start + 1:end]]
    home = [*lines[:start],
            "## A tour, following the seeds",
            "",
            "The tour is on [a page of its own](tour.md).",
            "", *lines[end:]]
    return {"index.md": "\n".join(home), "tour.md": "\n".join(tour)}


# ── links ────────────────────────────────────────────────────────────────────────────────
_LINK = re.compile(r"(`+)(?:(?!\1).)+?\1|(!?)\[((?:`[^`\n]*`|[^\]`\n])*)\]\(([^)\s]+)\)",
                   re.S)


def rewrite_links(markdown: str, origin: str, uri: str, site: set[str]) -> str:
    """Relative links of ``markdown`` (the repository's file ``origin``, the site's page
    ``uri``) made the site's: to the page of a file the site has, else the file's path
    (as code, where the link's text is the end of it) or the link's text (with the path
    when the text does not name the file)."""

    def fix(match):
        if match.group(1):  # a code span
            return match.group(0)
        bang, text, target = match.group(2, 3, 4)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(origin), path))
        site_path = {"README.md": "index.md"}.get(repo_path)
        if site_path is None and repo_path.startswith("docs/"):
            site_path = repo_path[len("docs/"):]
        if site_path in site:
            new = posixpath.relpath(site_path, posixpath.dirname(uri) or ".")
            return f"{bang}[{text}]({new}{'#' + anchor if anchor else ''})"
        shown = repo_path + ("/" if path.endswith("/") else "")
        code = re.fullmatch(r"`([^`]+)`", text)
        if code and repo_path.endswith(code.group(1).rstrip("/")):
            return f"`{shown}`"  # the full path
        return text if posixpath.basename(repo_path) in text else f"{text} (`{shown}`)"

    return _outside_fences(markdown, lambda chunk: _LINK.sub(fix, chunk))


_ITEM = re.compile(r"( *)([-*+]|\d+[.)]) +\S")


def gfm_lists(markdown: str) -> str:
    """Lists written for GitHub made Python-Markdown's (MkDocs'): a blank line before a list
    that starts right under a paragraph line, and a list's nested items, continuation lines
    and fenced blocks indented twice as deep (GitHub nests at 2 spaces, Python-Markdown at
    4)."""
    out: list[str] = []
    in_list, prev = False, ""
    fence: int | None = None  # the open fence's indentation, when inside one
    fence_shift = 0
    for line in markdown.split("\n"):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if fence is not None:
            if stripped.startswith("```") and indent <= fence:
                fence = None
            out.append(" " * fence_shift + line if line.strip() else line)
            prev = line
            continue
        item = _ITEM.match(line)
        if stripped.startswith("```"):
            fence, fence_shift = indent, indent if in_list and indent else 0
            if not indent:
                in_list = False
            out.append(" " * fence_shift + line)
        elif item and (in_list or item.group(2) in ("-", "*", "+", "1.", "1)")
                       or not prev.strip()):  # (GitHub: only these interrupt a paragraph)
            if not in_list and prev.strip():
                out.append("")
            in_list = True
            out.append(" " * indent + line)
        elif not line.strip():
            out.append(line)
        elif indent == 0:
            if not prev.strip():
                in_list = False
            out.append(line)
        else:
            out.append(" " * indent + line if in_list else line)
        prev = line
    return "\n".join(out)


# ── the MkDocs hook ──────────────────────────────────────────────────────────────────────
_generated: dict[str, str] = {}   # site path -> Markdown, made once per build
_origins: dict[str, str] = {}     # site path -> the repository file it comes from


def on_config(config, **kwargs):
    from mkdocs.exceptions import PluginError

    _generated.clear()
    _origins.clear()
    for uri, text in readme_pages().items():
        _generated[uri] = text
        _origins[uri] = "README.md"
    for uri, text in api_pages().items():
        _generated[uri] = text
        _origins[uri] = "docs/" + uri
    for item in config.nav or []:
        if isinstance(item, dict) and NAV_SECTION in item:
            item[NAV_SECTION] = [*item[NAV_SECTION],
                                 *({uri[4:-3]: uri} for uri in _generated
                                   if uri.startswith("api/"))]
            return config
    raise PluginError(f"docs/gen_site.py: mkdocs.yml's nav has no {NAV_SECTION!r} section "
                      "for the namespace pages")


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File

    for uri, text in _generated.items():
        files.append(File.generated(config, uri, content=text))
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    uri = page.file.src_uri
    origin = _origins.get(uri, "docs/" + uri)
    site = {f.src_uri for f in files}
    return gfm_lists(rewrite_links(markdown, origin, uri, site))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    pages = {**readme_pages(), **api_pages()}
    for uri, text in pages.items():
        (out / os.path.dirname(uri)).mkdir(parents=True, exist_ok=True)
        (out / uri).write_text(text)
    print(f"wrote {len(pages)} pages under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
