"""record_calls: the caller -> callee pairs a project's own test suite makes at runtime,
between the functions of one package, named as keel names its call graph's nodes.

A pytest plugin (load it with ``-p record_calls``, this folder on ``PYTHONPATH``): when
pytest imports it, before the tests and the package are imported, it installs a
``sys.setprofile`` hook (and ``threading.setprofile`` for threads started later); when
pytest ends it writes what it saw as JSON. Configured by the environment:

- ``RECALL_ROOT``: the checkout's root (keel's node ids are paths relative to it);
- ``RECALL_PACKAGE``: the package folder under it, e.g. ``src/click``; only frames whose
  code comes from a ``.py`` file under it count, on both ends of a pair;
- ``RECALL_OUT``: the JSON file to write.

A pair is one profile ``call`` event whose frame and whose ``f_back`` both run code of
the package: the callee is the frame's function, the caller the function that was
running when it started (Python code outside the package in between drops the pair: a
callback run by werkzeug is werkzeug's call). Builtins in between do not (``sorted(key=f)``,
``functools.partial``, ``type.__call__`` are C code, so ``f_back`` is the Python caller).

Names, as keel's ``keel callgraph`` names nodes (``queries/src/callgraph``): a node is
``path#Qualified.name`` with ``path`` relative to the root and the qualified name
``co_qualname`` without its ``<locals>`` parts (``command.<locals>.decorator`` is
``command.decorator``); a module's top-level code is ``path#<module>``; a class body is
the class's node. keel has no node for a lambda, a comprehension or a generator
expression, and gives their calls to the nearest named callable around them, so:

- a frame of such anonymous code as the *caller* is read as that enclosing callable
  (the qualified name cut at its first ``<...>`` part; ``<module>`` when none);
- a pair whose *callee* is anonymous code is left out (counted), as is a pair whose
  callee is a class body (a ``class`` statement runs its body: a definition, not a call)
  or a module (only ``exec``/import machinery runs one).

A generator's or coroutine's frame starts when it is first iterated or awaited, not when
the generator function is called (that runs no Python code), so its caller is the
consumer: such pairs are kept and marked ``generator`` (and the callable is listed in
``generators``); a resumption (a later ``next``) is not a call, and a generator closed
before it ever ran (the garbage collector finalizing it wherever the caller happens to
be) is none either: both are left out (counted).

For each pair the JSON keeps how many times it happened, the caller's lines, and the
caller's bytecode instruction at the moment of the call (``CALL``, ``LOAD_ATTR`` for a
property read, ``STORE_ATTR`` for a setter, ``COMPARE_OP``/``BINARY_OP``/``BINARY_SUBSCR``
for an operator's dunder, ``BEFORE_WITH``/``FOR_ITER`` for the protocols...), which is how
the bench tells why keel misses a pair, and the builtin the caller was in when the callee
started, if any (``builtins``: ``sorted``, ``BytesIO.flush``, ``str.format``: C code calling
back into Python; a call of a class or a slot wrapper leaves no trace here). It also lists every package callable that ran
(``ran``: every function, class body and module of it whose code started, an anonymous
frame counting for its enclosing callable), and the test
session's outcome.

Requires CPython 3.11+ (``co_qualname``; the instruction offsets of 3.11's bytecode).
"""

from __future__ import annotations

import atexit
import dis
import json
import os
import sys
import threading
import time

CO_OPTIMIZED = 0x1
# Generators, coroutines, async generators, iterable coroutines.
CO_SUSPENDS = 0x20 | 0x80 | 0x100 | 0x200

# Roles of a code object of the package.
FUNCTION, MODULE, CLASS_BODY, ANONYMOUS = "function", "module", "class", "anonymous"


class Recorder:
    def __init__(self, root: str, package: str, out: str) -> None:
        self.root = os.path.realpath(root)
        self.package = package.strip("/")
        self.prefix = os.path.join(self.root, self.package) + os.sep
        self.out = out
        # id(code) -> None (not the package's) or (node id, role, first RESUME offset
        # when the code suspends, else -1). `keep` holds every code object looked up so
        # that no id in `codes` is ever reused by another object.
        self.codes: dict[int, tuple[str, str, int] | None] = {}
        self.keep: list[object] = []
        self.files: dict[str, str | None] = {}
        # id(code) -> {offset: opname}, for callers' code only.
        self.ops: dict[int, dict[int, str]] = {}
        # (caller, callee) -> [count, lines, ops, generator, builtins]
        self.pairs: dict[tuple[str, str], list] = {}
        self.ran: set[str] = set()
        self.generators: set[str] = set()
        # id(frame) of a package frame -> the builtin it is calling (between its profile
        # events `c_call` and `c_return`/`c_exception`).
        self.active: dict[int, object] = {}
        self.left_out = {
            "callee anonymous (lambda, comprehension, generator expression)": 0,
            "callee a class body (a class statement)": 0,
            "callee a module": 0,
            "generator or coroutine resumed (not a call)": 0,
            "generator or coroutine closed before it started": 0,
            "caller outside the package": 0,
        }
        self.started = time.time()
        self.session: dict[str, object] = {}
        self.written = False

    def rel(self, filename: str) -> str | None:
        try:
            return self.files[filename]
        except KeyError:
            pass
        path = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
        rel = None
        if path.startswith(self.prefix) and path.endswith(".py"):
            rel = os.path.relpath(path, self.root).replace(os.sep, "/")
        self.files[filename] = rel
        return rel

    def describe(self, code) -> tuple[str, str, int] | None:
        rel = self.rel(code.co_filename)
        if rel is None:
            return None
        if code.co_name == "<module>":
            return (f"{rel}#<module>", MODULE, -1)
        named = []
        role = FUNCTION if code.co_flags & CO_OPTIMIZED else CLASS_BODY
        for part in code.co_qualname.split("."):
            if part == "<locals>":
                continue
            if part.startswith("<"):
                role = ANONYMOUS
                break
            named.append(part)
        qualified = ".".join(named) if named else "<module>"
        resume = -1
        if role == FUNCTION and code.co_flags & CO_SUSPENDS:
            resume = next(
                (i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), 0
            )
        return (f"{rel}#{qualified}", role, resume)

    def op_at(self, code, offset: int) -> str:
        table = self.ops.get(id(code))
        if table is None:
            # Every offset, caches included, names its instruction: a specialized call
            # of a Python function leaves f_lasti on the CALL's last cache entry.
            table = {}
            current = "?"
            for instruction in dis.get_instructions(code, show_caches=True):
                if instruction.opname != "CACHE":
                    current = instruction.opname
                table[instruction.offset] = current
            self.ops[id(code)] = table
        return table.get(offset, "?")

    def profile(self, frame, event, arg):
        if event != "call":
            # A builtin a package frame calls: a Python function that starts before it
            # returns was called back by it (`sorted(key=f)`, `io` calling `write`).
            if event == "c_call":
                if self.codes.get(id(frame.f_code)) is not None:
                    self.active[id(frame)] = arg
            elif self.active:
                self.active.pop(id(frame), None)
            return
        code = frame.f_code
        key = id(code)
        try:
            callee = self.codes[key]
        except KeyError:
            callee = self.describe(code)
            self.keep.append(code)
            self.codes[key] = callee
        if callee is None:
            return
        callee_id, role, resume = callee
        if role != FUNCTION:
            if role == ANONYMOUS:
                self.ran.add(callee_id)
                self.left_out["callee anonymous (lambda, comprehension, generator expression)"] += 1
            elif role == CLASS_BODY:
                self.ran.add(callee_id)
                self.left_out["callee a class body (a class statement)"] += 1
            else:
                self.ran.add(callee_id)
                self.left_out["callee a module"] += 1
            return
        generator = resume >= 0
        if generator:
            # Started: the frame is at its first RESUME. Before it: a generator that never
            # ran, closed (by the garbage collector, at whatever the caller was doing).
            if frame.f_lasti > resume:
                self.left_out["generator or coroutine resumed (not a call)"] += 1
                return
            if frame.f_lasti < resume:
                self.left_out["generator or coroutine closed before it started"] += 1
                return
            self.generators.add(callee_id)
        self.ran.add(callee_id)
        back = frame.f_back
        if back is None:
            self.left_out["caller outside the package"] += 1
            return
        back_code = back.f_code
        key = id(back_code)
        try:
            caller = self.codes[key]
        except KeyError:
            caller = self.describe(back_code)
            self.keep.append(back_code)
            self.codes[key] = caller
        if caller is None:
            self.left_out["caller outside the package"] += 1
            return
        pair = (caller[0], callee_id)
        entry = self.pairs.get(pair)
        if entry is None:
            entry = self.pairs[pair] = [0, set(), set(), generator, set()]
        entry[0] += 1
        if len(entry[1]) < 8:
            entry[1].add(back.f_lineno)
        if len(entry[2]) < 4:
            entry[2].add(self.op_at(back_code, back.f_lasti))
        if self.active and len(entry[4]) < 4:
            builtin = self.active.get(id(back))
            if builtin is not None:
                entry[4].add(
                    getattr(builtin, "__qualname__", None) or getattr(builtin, "__name__", "?")
                )

    def start(self) -> None:
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)

    def write(self) -> None:
        if self.written:
            return
        self.written = True
        self.stop()
        pairs = [
            {
                "caller": caller,
                "callee": callee,
                "count": count,
                "lines": sorted(line for line in lines if line is not None),
                "ops": sorted(ops),
                "generator": generator,
                "builtins": sorted(builtins),
            }
            for (caller, callee), (count, lines, ops, generator, builtins) in sorted(
                self.pairs.items()
            )
        ]
        document = {
            "schema": "keel.recall.calls.v1",
            "root": self.root,
            "package": self.package,
            "python": sys.version.split()[0],
            "seconds": round(time.time() - self.started, 2),
            "session": self.session,
            "left_out": self.left_out,
            "ran": sorted(self.ran),
            "generators": sorted(self.generators),
            "pairs": pairs,
        }
        with open(self.out, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1)
            out.write("\n")


def _recorder() -> Recorder | None:
    try:
        root, package, out = (
            os.environ["RECALL_ROOT"],
            os.environ["RECALL_PACKAGE"],
            os.environ["RECALL_OUT"],
        )
    except KeyError:
        return None
    if sys.version_info < (3, 11):
        raise RuntimeError("record_calls needs Python 3.11+ (co_qualname)")
    return Recorder(root, package, out)


RECORDER = _recorder()
if RECORDER is not None:
    RECORDER.start()
    atexit.register(RECORDER.write)


def pytest_sessionfinish(session, exitstatus):
    if RECORDER is None:
        return
    RECORDER.stop()
    RECORDER.session = {
        "collected": session.testscollected,
        "failed": session.testsfailed,
        "exit_status": int(exitstatus),
    }
    RECORDER.write()
