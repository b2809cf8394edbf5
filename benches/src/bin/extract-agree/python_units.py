"""extract-agree's Python side: CPython's own parser (`ast`) lists the units of each
file, and this script turns them into the verdict keel should give each selector under
keel's TARGET rules (docs/specs.md, "Spec nodes and anchors"; issue 8).

Usage: python3 python_units.py ROOT < paths (NUL-separated, relative to ROOT)

Output, one record a line, tab-separated:
  V <compiler and version>                     (first)
  F <path> parsed
  F <path> rejected <line> <message>          (ast.parse failed: no units)
  S <path> <name> <verdict> <group> <kind> <ranges>
where verdict is live | ambiguous, group says how the unit was formed (plain, overload,
property), kind is function | method | class, and ranges is `start-end` (1-based,
inclusive; `;`-separated when ambiguous).

The rules, as keel states them:
- units are `def`, `async def` and `class` with lexical qualified names (`f`,
  `Class.method`, `outer.inner`); decorators belong to the unit (the range starts at the
  first decorator); `if`/`try`/`with`/`for`/`while`/`match` bodies are transparent;
- a def in a class body is a method, any other def a function;
- `@overload` / `@<anything>.overload` stubs join the waiting overload group of their
  name and kind (or open one); the next plain def of that name closes it;
- a def decorated `@<name>.setter/.getter/.deleter` joins the group of the def `<name>`
  before it (the latest unit of that qualified name and kind), whatever that def's own
  decorator is (`@property`, `@computed_field`, ...);
- any other repeated qualified name is ambiguous.
The bytes go to `ast.parse` as bytes, so a PEP 263 coding cookie is honoured.
"""

import ast
import sys

ACCESSORS = ("setter", "getter", "deleter")
TRANSPARENT_BODIES = ("body", "orelse", "finalbody")


def clean(text):
    return " ".join(str(text).split())


class Collector:
    """Merges declarations (in document order) into units, as keel's collector does."""

    def __init__(self):
        self.units = []
        self.overload_open = {}
        self.latest = {}

    def add(self, name, kind, start, end, role):
        index = None
        if role == "overload":
            open_index = self.overload_open.get(name)
            if open_index is not None and self.units[open_index]["kind"] == kind:
                index = self.extend(open_index, start, end, "overload")
            else:
                index = self.start(name, kind, start, end)
                self.overload_open[name] = index
        elif role == "accessor":
            latest = self.latest.get(name)
            if latest is not None and self.units[latest]["kind"] == kind:
                index = self.extend(latest, start, end, "property")
            else:
                index = self.start(name, kind, start, end)
            self.overload_open.pop(name, None)
        else:
            open_index = self.overload_open.pop(name, None)
            if open_index is not None and self.units[open_index]["kind"] == kind:
                index = self.extend(open_index, start, end, "overload")
            else:
                index = self.start(name, kind, start, end)
        self.latest[name] = index

    def start(self, name, kind, start, end):
        self.units.append(
            {"name": name, "kind": kind, "start": start, "end": end, "groups": set()}
        )
        return len(self.units) - 1

    def extend(self, index, start, end, group):
        unit = self.units[index]
        unit["start"] = min(unit["start"], start)
        unit["end"] = max(unit["end"], end)
        unit["groups"].add(group)
        return index


def role_of(node):
    """overload | accessor | plain, from the decorators of a def named node.name."""
    decorators = node.decorator_list
    for expr in decorators:
        if isinstance(expr, ast.Name) and expr.id == "overload":
            return "overload"
        if isinstance(expr, ast.Attribute) and expr.attr == "overload":
            return "overload"
    for expr in decorators:
        if (
            isinstance(expr, ast.Attribute)
            and expr.attr in ACCESSORS
            and isinstance(expr.value, ast.Name)
            and expr.value.id == node.name
        ):
            return "accessor"
    return "plain"


def walk(statements, prefix, in_class, units):
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qualified = f"{prefix}.{node.name}" if prefix else node.name
            if isinstance(node, ast.ClassDef):
                kind, role = "class", "plain"
            else:
                kind = "method" if in_class else "function"
                role = role_of(node)
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            units.add(qualified, kind, start, node.end_lineno, role)
            walk(node.body, qualified, isinstance(node, ast.ClassDef), units)
            continue
        for field in TRANSPARENT_BODIES:
            walk(getattr(node, field, None) or [], prefix, in_class, units)
        for handler in getattr(node, "handlers", None) or []:
            walk(handler.body, prefix, in_class, units)
        for case in getattr(node, "cases", None) or []:
            walk(case.body, prefix, in_class, units)


def main():
    root = sys.argv[1]
    paths = [p for p in sys.stdin.buffer.read().decode("utf-8").split("\0") if p]
    out = [f"V\tCPython {sys.version.split()[0]}"]
    for path in paths:
        try:
            with open(f"{root}/{path}", "rb") as handle:
                content = handle.read()
            tree = ast.parse(content, filename=path)
        except SyntaxError as error:
            out.append(f"F\t{path}\trejected\t{error.lineno or 0}\t{clean(error.msg)}")
            continue
        except (ValueError, RecursionError, MemoryError, OSError) as error:
            out.append(f"F\t{path}\trejected\t0\t{clean(error)}")
            continue
        out.append(f"F\t{path}\tparsed")
        units = Collector()
        walk(tree.body, "", False, units)
        by_name = {}
        for unit in units.units:
            by_name.setdefault(unit["name"], []).append(unit)
        for name, group in by_name.items():
            ranges = ";".join(f"{u['start']}-{u['end']}" for u in group)
            kinds = sorted({u["kind"] for u in group})
            forms = sorted(set().union(*(u["groups"] for u in group))) or ["plain"]
            verdict = "live" if len(group) == 1 else "ambiguous"
            out.append(
                f"S\t{path}\t{name}\t{verdict}\t{'+'.join(forms)}\t{'+'.join(kinds)}\t{ranges}"
            )
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
